// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for user/format.c: counter names, MAC parsing and printing,
 * per-CPU sums, and the FDB and status output in text and JSON. The JSON is
 * read back with the tests' strict reader (jsonv.h) and checked value by
 * value.
 */
#include <ctype.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "xdpnet.h"
#include "lib/util.h"
#include "datapath/names.h"
#include "datapath/counters.h"
#include "lib/json_writer.h"
#include "render/fdb.h"
#include "render/status.h"
#include "jsonv.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- reading the JSON back: jsonv.h, with lookups that fail the test ---- */

static struct jv *must_parse(const char *s)
{
	char err[128];
	struct jv *v = jv_parse(s, err, sizeof(err));

	if (!v)
		fail_msg("invalid JSON (%s):\n%s", err, s);
	return v;
}

/* Lookups: fail the test if the path is not there. */
static struct jv *jget(const struct jv *o, const char *key)
{
	struct jv *v;

	assert_non_null(o);
	if (o->t != JV_OBJ)
		fail_msg("'%s' looked up in a non-object", key);
	v = jv_get(o, key);
	if (!v)
		fail_msg("no key '%s'", key);
	return v;
}

static int jhas(const struct jv *o, const char *key)
{
	return jv_get(o, key) != NULL;
}

static struct jv *jat(const struct jv *a, int i)
{
	assert_non_null(a);
	assert_int_equal(a->t, JV_ARR);
	if (i >= a->n)
		fail_msg("index %d past array of %d", i, a->n);
	return jv_at(a, i);
}

static const char *jstr(const struct jv *o, const char *key)
{
	const struct jv *v = jget(o, key);

	if (v->t != JV_STR)
		fail_msg("'%s' is not a string", key);
	return v->str;
}

/* An unsigned integer, exactly (from the literal: a double cannot hold
 * every 64-bit counter). */
static unsigned long long jnum(const struct jv *o, const char *key)
{
	const struct jv *v = jget(o, key);
	char *end;
	unsigned long long x;

	if (v->t != JV_NUM)
		fail_msg("'%s' is not a number", key);
	if (!isdigit((unsigned char)v->lit[0]))
		fail_msg("'%s' is not an unsigned integer: %s", key, v->lit);
	x = strtoull(v->lit, &end, 10);
	if (*end)
		fail_msg("'%s' is not an integer: %s", key, v->lit);
	return x;
}

static int jbool(const struct jv *o, const char *key)
{
	const struct jv *v = jget(o, key);

	if (v->t != JV_BOOL)
		fail_msg("'%s' is not a boolean", key);
	return v->b;
}

/* The reader (jsonv.h) must be strict, or the tests below prove little. */
static void test_json_reader(void **state)
{
	static const char *const good[] = {
		"{}",
		"[]",
		" {\"a\":[1,2,{\"b\":null}],\"c\":true,\"d\":false} \n",
		"{\"s\":\"q\\\"b\\\\s\\/\\b\\f\\n\\r\\t\\u0001\\u001f\"}",
		"[0,-1,1.5,2e10,18446744073709551615]",
		"\"x\"",
	};
	static const char *const bad[] = {
		"",
		"{",
		"[1,2,]",
		"{\"a\":1,}",
		"[,]",
		"{a:1}",
		"{'a':1}",
		"{\"a\" 1}",
		"{\"a\":1 \"b\":2}",
		"{\"a\":1,\"a\":2}",
		"\"bad \\x escape\"",
		"\"bad \\u12 escape\"",
		"\"nul \\u0000\"",
		"\"raw\ttab\"",
		"\"unterminated",
		"[01]",
		"[1.]",
		"[.5]",
		"[+1]",
		"[tru]",
		"[nulls]",
		"{} {}",
		"{}x",
		"[1]]",
	};
	unsigned int i;
	char err[128];

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		struct jv *v = jv_parse(good[i], err, sizeof(err));

		if (!v)
			fail_msg("reader rejects valid %s: %s", good[i], err);
		jv_free(v);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct jv *v = jv_parse(bad[i], err, sizeof(err));

		if (v)
			fail_msg("reader accepts invalid %s", bad[i]);
		assert_true(err[0] != '\0');
	}
}

/* ---- output into memory ---- */

struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
}

static char *mem_close(struct mem *m)
{
	assert_int_equal(fclose(m->f), 0);
	assert_non_null(m->buf);
	return m->buf;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("\"%s\" not found in:\n%s", needle, hay);
}

/* ---- counter names ---- */

static void test_ctr_names(void **state)
{
	unsigned int i, k;

	(void)state;
	for (i = 0; i < XDPNET_C_MAX; i++) {
		const char *n = xn_ctr_name(i);
		const char *c;

		if (!n)
			fail_msg("counter %u has no name", i);
		assert_true(n[0] != '\0');
		assert_true(islower((unsigned char)n[0]));
		for (c = n; *c; c++)
			if (!islower((unsigned char)*c) &&
			    !isdigit((unsigned char)*c) && *c != '_')
				fail_msg("counter %u name '%s' not [a-z0-9_]",
					 i, n);
		assert_true(n[strlen(n) - 1] != '_');
		for (k = 0; k < i; k++)
			if (!strcmp(n, xn_ctr_name(k)))
				fail_msg("counters %u and %u both '%s'", k, i,
					 n);
		assert_int_equal(xn_ctr_from_name(n), (int)i);
	}
	/* a few fixed names: they are an interface (JSON, Prometheus) */
	assert_string_equal(xn_ctr_name(XDPNET_C_XDP_REDIRECT), "xdp_redirect");
	assert_string_equal(xn_ctr_name(XDPNET_C_TC_REDIRECT), "tc_redirect");
	assert_string_equal(xn_ctr_name(XDPNET_C_PASS_UNKNOWN), "pass_unknown");
	assert_string_equal(xn_ctr_name(XDPNET_C_DROP_XMIT_ERR),
			    "drop_xmit_err");
	assert_null(xn_ctr_name(XDPNET_C_MAX));
	assert_null(xn_ctr_name(XDPNET_C_MAX + 1));
	assert_null(xn_ctr_name(UINT_MAX));
	assert_null(xn_ctr_name((unsigned int)-1));
	assert_int_equal(xn_ctr_from_name(""), -1);
	assert_int_equal(xn_ctr_from_name("bogus"), -1);
	assert_int_equal(xn_ctr_from_name("XDP_REDIRECT"), -1);
	assert_int_equal(xn_ctr_from_name("xdp_redirec"), -1);
	assert_int_equal(xn_ctr_from_name("xdp_redirect "), -1);
	assert_int_equal(xn_ctr_from_name("xdp_redirectx"), -1);
}

static void test_enum_names(void **state)
{
	(void)state;
	assert_string_equal(xn_mode_name(XDPNET_MODE_TC), "tc");
	assert_string_equal(xn_mode_name(XDPNET_MODE_XDP), "xdp");
	assert_string_equal(xn_mode_name(0), "?");
	assert_string_equal(xn_mode_name(99), "?");
	assert_string_equal(xn_hook_name(XDPNET_HOOK_TCX), "tcx");
	assert_string_equal(xn_hook_name(XDPNET_HOOK_CLSACT), "clsact");
	assert_string_equal(xn_hook_name(0), "?");
	assert_string_equal(xn_tc_reason_text(XDPNET_TCR_NONE), "");
	assert_string_equal(xn_tc_reason_text(XDPNET_TCR_MODE), "mode tc");
	assert_non_null(
		strstr(xn_tc_reason_text(XDPNET_TCR_FOREIGN_XDP), "XDP"));
	assert_non_null(
		strstr(xn_tc_reason_text(XDPNET_TCR_XDP_FAILED), "XDP"));
	assert_string_equal(xn_tc_reason_text(200), "?");
}

/* ---- MAC addresses ---- */

static void test_mac_round_trip(void **state)
{
	static const __u8 macs[][6] = {
		{ 0, 0, 0, 0, 0, 0 },
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 },
		{ 0xde, 0xad, 0xbe, 0xef, 0x0a, 0xb0 },
		{ 0x01, 0x23, 0x45, 0x67, 0x89, 0xab },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(macs); i++) {
		char buf[18], again[18];
		__u8 back[6];

		memset(buf, 'X', sizeof(buf));
		xn_format_mac(macs[i], buf);
		assert_int_equal(strlen(buf), 17);
		assert_int_equal(xn_parse_mac(buf, back), 0);
		assert_memory_equal(back, macs[i], 6);
		xn_format_mac(back, again);
		assert_string_equal(again, buf);
	}
	{
		char buf[18];

		xn_format_mac(macs[3], buf);
		assert_string_equal(buf, "de:ad:be:ef:0a:b0");
	}
}

static void test_mac_parse(void **state)
{
	__u8 m[6];

	(void)state;
	assert_int_equal(xn_parse_mac("02:00:5e:10:00:fe", m), 0);
	assert_memory_equal(m, ((__u8[]){ 0x02, 0x00, 0x5e, 0x10, 0x00, 0xfe }),
			    6);
	/* upper case is a MAC too */
	assert_int_equal(xn_parse_mac("AA:bB:Cc:DD:eE:0F", m), 0);
	assert_memory_equal(m, ((__u8[]){ 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0x0f }),
			    6);
}

static const char *const bad_macs[] = {
	"",
	"0",
	"aa:bb:cc:dd:ee",    /* too short */
	"aa:bb:cc:dd:ee:f",  /* last byte one digit */
	"a:bb:cc:dd:ee:ff",  /* first byte one digit */
	"aa:bb:cc:dd:ee:f:", /* 17 chars, wrong shape */
	"aa:bb:cc:dd:ee:fg", /* bad hex */
	"gg:bb:cc:dd:ee:ff",
	"aa:bb:cc:dd:xe:ff",
	"aa-bb-cc-dd-ee-ff", /* wrong separators */
	"aa.bb.cc.dd.ee.ff",
	"aa:bb:cc-dd:ee:ff",
	"aa:bb:cc:dd:ee;ff",
	"aabb.ccdd.eeff",
	"aabbccddeeff",
	"aa::bb:cc:dd:eeff",
	"aa:bb:cc:dd:ee:ff:", /* trailing characters */
	"aa:bb:cc:dd:ee:ff0",
	"aa:bb:cc:dd:ee:ff ",
	"aa:bb:cc:dd:ee:ff\n",
	"aa:bb:cc:dd:ee:ff:00",
	" aa:bb:cc:dd:ee:ff", /* leading space */
	"aaa:bb:cc:dd:ee:f",
	"aa:bb:cc:dd:ee:f ",
};

static void test_mac_reject(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad_macs); i++) {
		__u8 m[6];

		if (xn_parse_mac(bad_macs[i], m) != -1)
			fail_msg("xn_parse_mac accepts \"%s\"", bad_macs[i]);
	}
}

/*
 * Bug (user/format.c, xn_parse_mac): "%2x" lets sscanf skip white space and
 * take a sign or a "0x" prefix inside each group, and the length and ':'
 * checks do not catch it when the string still has 17 characters.
 */
static void bug_mac_accepts_sign_space_prefix(void **state)
{
	/* clang-format off */
	static const char *const sneaky[] = {
		"+1:+2:+3:+4:+5:+6", /* accepted as 01:02:03:04:05:06 */
		"-1:-2:-3:-4:-5:-6", /* accepted as ff:fe:fd:fc:fb:fa */
		" 1: 2: 3: 4: 5: 6", /* accepted as 01:02:03:04:05:06 */
		"0x:11:22:33:44:55", /* accepted as 00:11:22:33:44:55 */
		"aa:bb:cc:dd:ee: f", /* accepted as aa:bb:cc:dd:ee:0f */
		"aa:bb:cc:dd:ee:+f",
		"aa:bb:cc:dd:ee:-0",
	};
	/* clang-format on */
	unsigned int i;
	int bad = 0;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(sneaky); i++) {
		__u8 m[6];
		char got[18];

		if (xn_parse_mac(sneaky[i], m) == -1)
			continue;
		xn_format_mac(m, got);
		print_error("xn_parse_mac accepts \"%s\" as %s\n", sneaky[i],
			    got);
		bad++;
	}
	if (bad)
		fail_msg("%d malformed MAC strings accepted", bad);
}

/* ---- per-CPU sums ---- */

static void test_sum_stats(void **state)
{
	enum { NCPU = 5 };
	struct xdpnet_stats *pc = calloc(NCPU, sizeof(*pc));
	struct xdpnet_stats out;
	int cpu, i;

	(void)state;
	assert_non_null(pc);
	for (cpu = 0; cpu < NCPU; cpu++)
		for (i = 0; i < XDPNET_C_MAX; i++) {
			pc[cpu].c[i].packets = (cpu + 1) * 100 + i;
			pc[cpu].c[i].bytes = ((__u64)(cpu + 1) << 32) + i * 7;
		}
	memset(&out, 0xee, sizeof(out));
	xn_sum_stats(pc, NCPU, &out);
	for (i = 0; i < XDPNET_C_MAX; i++) {
		/* sum(cpu+1) = 15 */
		assert_int_equal(out.c[i].packets, 1500 + NCPU * i);
		assert_int_equal(out.c[i].bytes,
				 (15ULL << 32) + NCPU * (__u64)i * 7);
	}

	/* one CPU: a copy */
	xn_sum_stats(&pc[2], 1, &out);
	assert_memory_equal(&out, &pc[2], sizeof(out));

	/* none: zeros, whatever out held */
	memset(&out, 0xee, sizeof(out));
	xn_sum_stats(pc, 0, &out);
	for (i = 0; i < XDPNET_C_MAX; i++) {
		assert_int_equal(out.c[i].packets, 0);
		assert_int_equal(out.c[i].bytes, 0);
	}

	/* 64-bit counters do not lose their high bits */
	memset(pc, 0, NCPU * sizeof(*pc));
	pc[0].c[XDPNET_C_TC_REDIRECT].bytes = 0xffffffff00000000ULL;
	pc[3].c[XDPNET_C_TC_REDIRECT].bytes = 0xffffffffULL;
	xn_sum_stats(pc, NCPU, &out);
	assert_true(out.c[XDPNET_C_TC_REDIRECT].bytes == UINT64_MAX);
	free(pc);
}

/* ---- xn_json_str ---- */

static void test_json_str(void **state)
{
	/* clang-format off */
	static const char *const in[] = {
		"", "plain", "q\"uote", "back\\slash", "tab\there",
		"nl\nx\x01\x1f", "del\x7f", "/slash/",
	};
	/* clang-format on */
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		struct mem m;
		struct jv *v;
		char *s;

		mem_open(&m);
		xn_json_str(m.f, in[i]);
		s = mem_close(&m);
		v = must_parse(s);
		assert_int_equal(v->t, JV_STR);
		assert_string_equal(v->str, in[i]);
		jv_free(v);
		free(s);
	}
}

/* ---- FDB ---- */

/* The datapath's clock: jiffies (low 32 bits) and their rate. */
#define NOW_J 1000000U
#define HZ 250U

static struct xn_fdb_row fdb_rows[] = {
	{ .key = { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 }, 10 },
	  .val = { .ifindex = 4,
		   .slot = 3,
		   .gen = 1,
		   .flags = 0,
		   .bridge_j = NOW_J - 375 }, /* 1.5 s */
	  .port = "veth0" },
	{ .key = { { 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff }, 0 },
	  .val = { .ifindex = 9,
		   .flags = XDPNET_FDB_SEEDED | XDPNET_FDB_STATIC,
		   .bridge_j = 0 }, /* never seen */
	  .port = "" },
	{ .key = { { 0x02, 0x00, 0x00, 0x00, 0x00, 0xb0 }, 4094 },
	  .val = { .ifindex = 2,
		   .flags = XDPNET_FDB_LOCAL | XDPNET_FDB_SEEDED,
		   .bridge_j = NOW_J - 1 }, /* one jiffy: 4 ms */
	  .port = "a\"b\\c\td" },
	{ .key = { { 0x0e, 0x01, 0x02, 0x03, 0x04, 0x05 }, 1 },
	  .val = { .ifindex = 7, .bridge_j = NOW_J + 1250 }, /* after now */
	  .port = "tap7" },
	{ .key = { { 0x0e, 0x01, 0x02, 0x03, 0x04, 0x06 }, 1 },
	  .val = { .ifindex = 7,
		   .flags = XDPNET_FDB_LOCAL | XDPNET_FDB_STATIC |
			    XDPNET_FDB_LOCKED | XDPNET_FDB_SEEDED,
		   .bridge_j = 1 },
	  .port = "tap7" },
};

static void assert_flags(const struct jv *e, const char *const *want)
{
	const struct jv *fl = jget(e, "flags");
	int i;

	assert_int_equal(fl->t, JV_ARR);
	for (i = 0; want[i]; i++) {
		assert_true(i < fl->n);
		assert_int_equal(fl->items[i]->t, JV_STR);
		assert_string_equal(fl->items[i]->str, want[i]);
	}
	assert_int_equal(fl->n, i);
}

static void test_fdb_json(void **state)
{
	static const char *const none[] = { NULL };
	static const char *const f1[] = { "static", "seeded", NULL };
	static const char *const f2[] = { "local", "seeded", NULL };
	static const char *const f4[] = { "local", "static", "locked", "seeded",
					  NULL };
	struct jv *root, *ents, *e;
	struct mem m;
	char *s;

	(void)state;
	mem_open(&m);
	xn_print_fdb(m.f, "br0", fdb_rows, ARRAY_SIZE(fdb_rows), NOW_J, HZ, 1);
	s = mem_close(&m);
	root = must_parse(s);
	assert_int_equal(root->t, JV_OBJ);
	assert_int_equal(root->n, 2);
	assert_string_equal(jstr(root, "bridge"), "br0");
	ents = jget(root, "entries");
	assert_int_equal(ents->t, JV_ARR);
	assert_int_equal(ents->n, ARRAY_SIZE(fdb_rows));

	e = jat(ents, 0);
	assert_int_equal(e->n, 6);
	assert_string_equal(jstr(e, "mac"), "02:00:00:00:00:01");
	assert_int_equal(jnum(e, "vlan"), 10);
	assert_string_equal(jstr(e, "port"), "veth0");
	assert_int_equal(jnum(e, "ifindex"), 4);
	assert_flags(e, none); /* learned: no flag */
	assert_int_equal(jnum(e, "age_ms"), 1500);

	e = jat(ents, 1);
	assert_string_equal(jstr(e, "mac"), "aa:bb:cc:dd:ee:ff");
	assert_int_equal(jnum(e, "vlan"), 0);
	assert_string_equal(jstr(e, "port"), "");
	assert_int_equal(jnum(e, "ifindex"), 9);
	assert_flags(e, f1);
	assert_int_equal(jnum(e, "age_ms"), 0); /* never seen */

	e = jat(ents, 2);
	assert_string_equal(jstr(e, "mac"), "02:00:00:00:00:b0");
	assert_int_equal(jnum(e, "vlan"), 4094);
	assert_string_equal(jstr(e, "port"), "a\"b\\c\td");
	assert_flags(e, f2);
	assert_int_equal(jnum(e, "age_ms"), 1000 / HZ);

	e = jat(ents, 3);
	assert_flags(e, none);
	assert_int_equal(jnum(e, "age_ms"), 0); /* seen after now */

	e = jat(ents, 4);
	assert_flags(e, f4);
	assert_int_equal(jnum(e, "age_ms"), (NOW_J - 1) * 1000ULL / HZ);
	/* the escapes are in the raw text as well */
	assert_contains(s, "\"port\":\"a\\\"b\\\\c\\u0009d\"");
	jv_free(root);
	free(s);
}

/* Ages across the wrap of the 32-bit jiffies, and without a known rate. */
static void test_fdb_age(void **state)
{
	static const struct {
		__u32 now, seen, hz;
		unsigned long long ms;
	} t[] = {
		{ 100, 0xffffff00U, 250, 356 * 4 }, /* 356 jiffies ago */
		{ 0, 0xffffffffU, 1000, 1 },
		{ 0x80000000U, 0x7fffffffU, 100, 10 },
		{ 5, 5 + 0x80000000U, 250, 0 }, /* half the clock: future */
		{ NOW_J, NOW_J - 375, 0, 0 },	/* no rate */
		{ NOW_J, 0, 250, 0 },		/* never seen */
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct xn_fdb_row r = fdb_rows[0];
		struct jv *root;
		struct mem m;
		char *s;

		r.val.bridge_j = t[i].seen;
		mem_open(&m);
		xn_print_fdb(m.f, "br0", &r, 1, t[i].now, t[i].hz, 1);
		s = mem_close(&m);
		root = must_parse(s);
		if (jnum(jat(jget(root, "entries"), 0), "age_ms") != t[i].ms)
			fail_msg("case %u: age_ms %llu, want %llu", i,
				 jnum(jat(jget(root, "entries"), 0), "age_ms"),
				 t[i].ms);
		jv_free(root);
		free(s);
	}
}

static void test_fdb_json_empty(void **state)
{
	struct jv *root;
	struct mem m;
	char *s;

	(void)state;
	mem_open(&m);
	xn_print_fdb(m.f, "we\"ird", NULL, 0, NOW_J, HZ, 1);
	s = mem_close(&m);
	root = must_parse(s);
	assert_string_equal(jstr(root, "bridge"), "we\"ird");
	assert_int_equal(jget(root, "entries")->t, JV_ARR);
	assert_int_equal(jget(root, "entries")->n, 0);
	jv_free(root);
	free(s);
}

static void test_fdb_text(void **state)
{
	struct mem m;
	char *s, *line;
	int lines = 0;

	(void)state;
	mem_open(&m);
	xn_print_fdb(m.f, "br0", fdb_rows, 2, NOW_J, HZ, 0);
	s = mem_close(&m);
	for (line = s; (line = strchr(line, '\n')); line++)
		lines++;
	assert_int_equal(lines, 3); /* header and two rows */
	assert_true(s[strlen(s) - 1] == '\n');
	assert_true(!strncmp(s, "mac ", 4));
	assert_contains(s, "vlan");
	assert_contains(s, "ifindex");
	assert_contains(s, "age_ms");
	assert_contains(s, "flags\n");
	line = strstr(s, "02:00:00:00:00:01");
	assert_non_null(line);
	assert_contains(line, "veth0");
	/* a learned entry has no flag: the age ends the line */
	assert_true(!strncmp(strstr(line, " 1500 "), " 1500 \n", 7));
	line = strstr(s, "aa:bb:cc:dd:ee:ff");
	assert_non_null(line);
	assert_contains(line, " - "); /* port gone */
	assert_contains(line, " 0 static,seeded\n");
	assert_null(strchr(s, '{'));
	free(s);
}

/* ---- status ---- */

static struct xn_port_row ports0[2];
static struct xn_port_row ports1[1];
static struct xn_bridge_status bridges[2];

static void setup_status(void)
{
	unsigned int i;

	memset(ports0, 0, sizeof(ports0));
	memset(ports1, 0, sizeof(ports1));
	memset(bridges, 0, sizeof(bridges));

	/* port 0: veth with the XDP stage, bypassed, every counter distinct */
	ports0[0].port = (struct xdpnet_port){
		.ifindex = 4,
		.flags = XDPNET_PORT_FWD | XDPNET_PORT_XDP | XDPNET_PORT_VETH |
			 XDPNET_PORT_XDP_TARGET,
		.tc_reason = XDPNET_TCR_NONE,
		.hook = XDPNET_HOOK_TCX,
	};
	strcpy(ports0[0].name, "veth\"0");
	ports0[0].tc_prog_id = 101;
	ports0[0].xdp_prog_id = 102;
	for (i = 0; i < XDPNET_C_MAX; i++) {
		ports0[0].st.c[i].packets = 1000 + i;
		ports0[0].st.c[i].bytes = 64000ULL * (i + 1);
	}
	/* port 1: a tap on the TC stage, another program owns its XDP, held
	 * on the bridge (STP state) */
	ports0[1].port = (struct xdpnet_port){
		.ifindex = 17,
		.flags = 0,
		.tc_reason = XDPNET_TCR_FOREIGN_XDP,
		.hook = XDPNET_HOOK_CLSACT,
		.foreign_prog_id = 77,
		.hold = XDPNET_HOLD_STATE,
	};
	strcpy(ports0[1].name, "tap0");
	ports0[1].tc_prog_id = 103;
	ports0[1].st.c[XDPNET_C_TC_REDIRECT].packets = 5;
	ports0[1].st.c[XDPNET_C_TC_REDIRECT].bytes = 500;
	ports0[1].st.c[XDPNET_C_DROP_XMIT_ERR].packets = UINT64_MAX;
	ports0[1].st.c[XDPNET_C_DROP_XMIT_ERR].bytes = UINT64_MAX;

	strcpy(bridges[0].name, "br0");
	bridges[0].meta = (struct xdpnet_meta){
		.abi = XDPNET_ABI,
		.bridge_ifindex = 2,
		.mode = XDPNET_MODE_XDP,
		.live = 1,
		.attached_at = 1700000000ULL,
		.fdb_trace = 1,
		.build = "0.2.0-0123456789abcdef",
	};
	bridges[0].cfg = (struct xdpnet_cfg){
		.bridge_ifindex = 2,
		.vlan_filtering = 1,
		.bypass = 1,
		.refresh_j = 625,
		.hz = 250,
	};
	bridges[0].follower = 1;
	bridges[0].follower_pid = 4242;
	bridges[0].fdb_entries = 1;
	bridges[0].fdb_static = 3;
	bridges[0].size[XN_SIZE_FDB] = 64;
	bridges[0].size[XN_SIZE_STATIC] = 4096;
	bridges[0].size[XN_SIZE_VLANS] = 16384;
	bridges[0].fdb_ev[XDPNET_FE_LEARN] = 5;
	bridges[0].fdb_ev[XDPNET_FE_DELETE] = 2;
	bridges[0].fdb_ev[XDPNET_FE_USER] = 1;
	bridges[0].nports = 2;
	bridges[0].ports = ports0;
	bridges[0].note_set = 1; /* tracepoints missing */

	ports1[0].port = (struct xdpnet_port){
		.ifindex = 30,
		.flags = XDPNET_PORT_VETH,
		.tc_reason = XDPNET_TCR_MODE,
		.hook = XDPNET_HOOK_TCX,
		.hold = XDPNET_HOLD_BRIDGE,
	};
	strcpy(ports1[0].name, "v1");
	strcpy(bridges[1].name, "br1");
	bridges[1].meta = (struct xdpnet_meta){
		.bridge_ifindex = 3,
		.mode = XDPNET_MODE_TC,
		.no_follow = 1,
	};
	bridges[1].cfg = (struct xdpnet_cfg){
		.bridge_ifindex = 3, .refresh_j = 999, /* no rate known: 0 ms */
	};
	bridges[1].fdb_ev[XDPNET_FE_FULL] = 7;
	bridges[1].nports = 1;
	bridges[1].ports = ports1;
	bridges[1].gone = 1;
}

static void check_counters(const struct jv *port, const struct xdpnet_stats *st)
{
	const struct jv *ctrs = jget(port, "counters");
	unsigned int i;

	assert_int_equal(ctrs->t, JV_OBJ);
	assert_int_equal(ctrs->n, XDPNET_C_MAX);
	for (i = 0; i < XDPNET_C_MAX; i++) {
		const char *name = xn_ctr_name(i);
		const struct jv *c;

		if (!name)
			fail_msg("counter %u has no name", i);
		c = jget(ctrs, name);
		assert_int_equal(c->t, JV_OBJ);
		assert_int_equal(c->n, 2);
		assert_true(jnum(c, "packets") == st->c[i].packets);
		assert_true(jnum(c, "bytes") == st->c[i].bytes);
	}
}

static void test_status_json(void **state)
{
	struct jv *root, *brs, *b, *ps, *p, *o;
	struct mem m;
	char *s;

	(void)state;
	setup_status();
	mem_open(&m);
	xn_print_status(m.f, bridges, 2, 1);
	s = mem_close(&m);
	root = must_parse(s);
	brs = jget(root, "bridges");
	assert_int_equal(brs->t, JV_ARR);
	assert_int_equal(brs->n, 2);

	b = jat(brs, 0);
	assert_string_equal(jstr(b, "bridge"), "br0");
	assert_int_equal(jnum(b, "ifindex"), 2);
	assert_string_equal(jstr(b, "mode"), "xdp");
	assert_string_equal(jstr(b, "datapath"), "live");
	assert_string_equal(jstr(b, "fdb_mirror"), "kernel");
	assert_int_equal(jbool(b, "bypass"), 1);
	assert_int_equal(jbool(b, "vlan_filtering"), 1);
	assert_false(jhas(b, "strict")); /* --strict has no effect now */
	assert_int_equal(jnum(b, "refresh_ms"), 2500);
	assert_int_equal(jnum(b, "attached_at"), 1700000000);
	assert_string_equal(jstr(b, "build"), "0.2.0-0123456789abcdef");
	o = jget(b, "follower");
	assert_int_equal(o->n, 3);
	assert_int_equal(jbool(o, "running"), 1);
	assert_int_equal(jnum(o, "pid"), 4242);
	assert_int_equal(jbool(o, "wanted"), 1);
	assert_int_equal(jnum(b, "fdb_entries"), 1);
	assert_int_equal(jnum(b, "fdb_static"), 3);
	assert_int_equal(jnum(b, "fdb_size"), 64);
	assert_int_equal(jnum(b, "static_size"), 4096);
	assert_int_equal(jnum(b, "vlan_size"), 16384);
	o = jget(b, "fdb_events");
	assert_int_equal(o->n, XDPNET_FE_MAX);
	assert_int_equal(jnum(o, "learned"), 5);
	assert_int_equal(jnum(o, "deleted"), 2);
	assert_int_equal(jnum(o, "full"), 0);
	assert_int_equal(jnum(o, "user"), 1);
	assert_int_equal(jbool(b, "tracing"), 0);
	assert_int_equal(jbool(b, "bridge_gone"), 0);
	ps = jget(b, "ports");
	assert_int_equal(ps->t, JV_ARR);
	assert_int_equal(ps->n, 2);

	p = jat(ps, 0);
	assert_string_equal(jstr(p, "name"), "veth\"0");
	assert_int_equal(jnum(p, "ifindex"), 4);
	assert_string_equal(jstr(p, "kind"), "veth");
	assert_int_equal(jbool(p, "xdp"), 1);
	assert_string_equal(jstr(p, "xdp_via"), "link");
	assert_string_equal(jstr(p, "tc_reason"), "");
	assert_int_equal(jbool(p, "xdp_target"), 1);
	assert_string_equal(jstr(p, "hook"), "tcx");
	assert_int_equal(jnum(p, "tc_prog_id"), 101);
	assert_int_equal(jnum(p, "xdp_prog_id"), 102);
	assert_int_equal(jnum(p, "foreign_xdp_prog_id"), 0);
	assert_int_equal(jbool(p, "bypassed"), 1);
	assert_string_equal(jstr(p, "hold"), "");
	check_counters(p, &ports0[0].st);

	p = jat(ps, 1);
	assert_string_equal(jstr(p, "name"), "tap0");
	assert_int_equal(jnum(p, "ifindex"), 17);
	assert_string_equal(jstr(p, "kind"), "tap");
	assert_int_equal(jbool(p, "xdp"), 0);
	assert_string_equal(jstr(p, "xdp_via"), "");
	assert_string_equal(jstr(p, "tc_reason"),
			    xn_tc_reason_text(XDPNET_TCR_FOREIGN_XDP));
	assert_int_equal(jbool(p, "xdp_target"), 0);
	assert_string_equal(jstr(p, "hook"), "clsact");
	assert_int_equal(jnum(p, "xdp_prog_id"), 0);
	assert_int_equal(jnum(p, "foreign_xdp_prog_id"), 77);
	assert_int_equal(jbool(p, "bypassed"), 0);
	assert_string_equal(jstr(p, "hold"), "state");
	check_counters(p, &ports0[1].st);

	b = jat(brs, 1);
	assert_string_equal(jstr(b, "bridge"), "br1");
	assert_string_equal(jstr(b, "mode"), "tc");
	assert_string_equal(jstr(b, "datapath"), "portable");
	assert_string_equal(jstr(b, "fdb_mirror"), "follower");
	assert_int_equal(jbool(b, "bypass"), 0);
	assert_int_equal(jbool(b, "vlan_filtering"), 0);
	assert_int_equal(jnum(b, "refresh_ms"), 0);
	o = jget(b, "follower");
	assert_int_equal(jbool(o, "running"), 0);
	assert_int_equal(jnum(o, "pid"), 0);
	assert_int_equal(jbool(o, "wanted"), 0); /* --no-follow */
	assert_int_equal(jnum(b, "fdb_entries"), 0);
	assert_int_equal(jnum(jget(b, "fdb_events"), "full"), 7);
	assert_int_equal(jbool(b, "tracing"), 1);
	assert_int_equal(jbool(b, "bridge_gone"), 1);
	p = jat(jget(b, "ports"), 0);
	assert_string_equal(jstr(p, "tc_reason"), "mode tc");
	assert_string_equal(jstr(p, "hold"), "bridge");
	assert_int_equal(jbool(p, "bypassed"), 0);
	assert_false(jhas(p, "bogus"));
	check_counters(p, &ports1[0].st);

	/* the port name's quote is escaped in the raw text */
	assert_contains(s, "\"name\":\"veth\\\"0\"");
	jv_free(root);
	free(s);
}

static void test_status_json_empty(void **state)
{
	struct jv *root;
	struct mem m;
	char *s;

	(void)state;
	setup_status();
	bridges[1].nports = 0;
	bridges[1].ports = NULL;
	mem_open(&m);
	xn_print_status(m.f, bridges, 0, 1);
	s = mem_close(&m);
	root = must_parse(s);
	assert_int_equal(jget(root, "bridges")->n, 0);
	jv_free(root);
	free(s);

	/* a bridge without ports */
	mem_open(&m);
	xn_print_status(m.f, &bridges[1], 1, 1);
	s = mem_close(&m);
	root = must_parse(s);
	assert_int_equal(jget(jat(jget(root, "bridges"), 0), "ports")->n, 0);
	jv_free(root);
	free(s);
}

/* Packets of port 0 (1000 + counter) summed over [from, to]. */
static unsigned long long range_sum(int from, int to)
{
	unsigned long long n = 0;
	int i;

	for (i = from; i <= to; i++)
		n += 1000 + i;
	return n;
}

static void test_status_text(void **state)
{
	int saved = xn_verbose_counters;
	struct mem m;
	char *s, *p, want[256];
	unsigned int i;

	(void)state;
	setup_status();
	xn_verbose_counters = 1;
	mem_open(&m);
	xn_print_status(m.f, bridges, 2, 0);
	s = mem_close(&m);
	assert_null(strchr(s, '{'));
	assert_contains(s, "br0: mode xdp, live datapath, 2 ports, fdb 1/64 "
			   "learned + 3/4096 static/local (mirrored in the "
			   "kernel), vlan filtering on, bridge fdb keep-alive "
			   "every 2500 ms\n");
	assert_contains(s, "  follower: running (pid 4242)\n");
	assert_contains(s,
			"  note: redirect-error tracepoints are not attached");
	/* only br0 has the note */
	assert_null(strstr(strstr(s, "note:") + 1, "note:"));
	assert_null(strstr(s, "strict"));
	assert_contains(s, "br1: mode tc, portable datapath, 1 port, fdb 0/0 "
			   "learned + 0/0 static/local (mirrored by the "
			   "follower), vlan filtering off, bridge fdb "
			   "keep-alive every 0 ms\n");
	p = strstr(s, "br1: ");
	assert_contains(p, "  follower: none (--no-follow)");
	assert_contains(p, "  bypass off: the bridge forwards everything");
	assert_contains(p, "  fdb copy was full 7 times");
	assert_contains(p, "  gone: the bridge was deleted; 'xdpnet detach "
			   "br1' removes what is left\n");
	/* none of br1's lines under br0 */
	assert_null(strstr(s, "bypass off") < p ? strstr(s, "bypass off")
						: NULL);
	assert_null(strstr(s, "was full") < p ? strstr(s, "was full") : NULL);
	/* port lines */
	p = strstr(s, "veth\"0");
	assert_non_null(p);
	assert_contains(p, "ifindex 4");
	assert_contains(p, "xdp (link)+tc");
	assert_contains(p, "tcx prog 101");
	assert_contains(p, "xdp prog 102");
	/* sums over the pass_*, xdp_defer_* and drop_* ranges */
	snprintf(want, sizeof(want),
		 "bypass: xdp %u pkts, tc %u pkts; into port %u pkts; to "
		 "bridge %llu pkts; xdp->tc %llu; drops %llu",
		 1000 + XDPNET_C_XDP_REDIRECT, 1000 + XDPNET_C_TC_REDIRECT,
		 1000 + XDPNET_C_RX_REDIRECTED,
		 range_sum(XDPNET_C_PASS_MCAST, XDPNET_C_PASS_MALFORMED) +
			 range_sum(XDPNET_C_PASS_NF, XDPNET_C_PASS_NF),
		 range_sum(XDPNET_C_XDP_DEFER_CSUM,
			   XDPNET_C_XDP_DEFER_REFRESH) +
			 range_sum(XDPNET_C_XDP_DEFER_UDP0,
				   XDPNET_C_XDP_DEFER_UDP0),
		 range_sum(XDPNET_C_DROP_REDIRECT_ERR, XDPNET_C_DROP_XMIT_ERR));
	assert_contains(p, want);
	/* every counter of port 0 is listed by name */
	for (i = 0; i < XDPNET_C_MAX; i++) {
		char line[128];

		if (!xn_ctr_name(i))
			fail_msg("counter %u has no name", i);
		snprintf(line, sizeof(line), "    %-18s %12u pkts",
			 xn_ctr_name(i), 1000 + i);
		assert_contains(p, line);
	}
	p = strstr(s, "tap0");
	assert_non_null(p);
	assert_contains(p, "tc (another XDP program is attached)");
	assert_contains(p, "clsact prog 103");
	assert_contains(p, "foreign xdp prog 77");
	assert_contains(p, "\n    held on the bridge: STP state not "
			   "forwarding\n");
	assert_contains(p, "drops 18446744073709551615");
	p = strstr(s, "  v1 ");
	assert_non_null(p);
	assert_contains(p, "tc (mode tc)");
	assert_contains(p, "held on the bridge: the bridge bypasses nothing");
	free(s);

	/* without the counter list: only the summary lines */
	xn_verbose_counters = 0;
	mem_open(&m);
	xn_print_status(m.f, bridges, 1, 0);
	s = mem_close(&m);
	assert_contains(s, "bypass: xdp 1000 pkts");
	assert_null(strstr(s, "pass_mcast"));
	assert_null(strstr(s, "xdp_defer_csum"));
	free(s);
	xn_verbose_counters = saved;
}

/* No follower where one is wanted: a warning that says what is missed. */
static void test_status_no_follower(void **state)
{
	struct mem m;
	char *s;

	(void)state;
	setup_status();
	bridges[0].follower = 0;
	bridges[1].meta.no_follow = 0;
	mem_open(&m);
	xn_print_status(m.f, bridges, 2, 0);
	s = mem_close(&m);
	/* br0 mirrors its FDB in the kernel, br1 through the follower */
	assert_contains(s, "  WARNING: no follower is running for br0: new "
			   "ports, port and bridge settings are not followed; "
			   "'xdpnet attach br0' starts one\n");
	assert_contains(s, "  WARNING: no follower is running for br1: new "
			   "ports, port and bridge settings and the FDB are "
			   "not followed; 'xdpnet attach br1' starts one\n");
	assert_null(strstr(s, "follower: running"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_reader),
		cmocka_unit_test(test_ctr_names),
		cmocka_unit_test(test_enum_names),
		cmocka_unit_test(test_mac_round_trip),
		cmocka_unit_test(test_mac_parse),
		cmocka_unit_test(test_mac_reject),
		cmocka_unit_test(test_sum_stats),
		cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_fdb_json),
		cmocka_unit_test(test_fdb_age),
		cmocka_unit_test(test_fdb_json_empty),
		cmocka_unit_test(test_fdb_text),
		cmocka_unit_test(test_status_json),
		cmocka_unit_test(test_status_json_empty),
		cmocka_unit_test(test_status_text),
		cmocka_unit_test(test_status_no_follower),
		cmocka_unit_test(bug_mac_accepts_sign_space_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
