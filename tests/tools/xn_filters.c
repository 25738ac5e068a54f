// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xn_filters: prints user/filters.c's verdict for one bridge, for the tests
 * (the CLI's status/attach will use the module itself).
 *   xn_filters [--json] BRIDGE            the live system (this netns)
 *   xn_filters [--json] --ports P1,P2 [--nets "NETS"] [--call 4,6,arp]
 *              [--ipt F] [--ip6t F] [--ebt F] [--arpt F] [--nft F]
 *              [--nft-text F] BRIDGE
 *                                         recorded rule sets (files)
 * Exit: 0 printed, 1 failed, 2 usage, 3 no such bridge.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/nl.h"
#include "filters/filters.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, 0, f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, 0, 'j' },
		{ "ports", 1, 0, 'p' },
		{ "nets", 1, 0, 'n' },
		{ "call", 1, 0, 'c' },
		{ "ipt", 1, 0, '4' },
		{ "ip6t", 1, 0, '6' },
		{ "ebt", 1, 0, 'e' },
		{ "arpt", 1, 0, 'a' },
		{ "nft", 1, 0, 'f' },
		{ 0, 0, 0, 0 },
	};
	static struct xn_filt_port_id ports[256];
	static struct xn_filt_text texts[16];
	struct xn_filt_input in = { .texts = texts, .ports = ports };
	struct xn_filt_live live;
	struct xn_filt_report r;
	int json = 0, offline = 0, o, i, rc;
	char *t, *save = NULL;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		enum xn_filt_src src;

		switch (o) {
		case 'j':
			json = 1;
			continue;
		case 'p':
			offline = 1;
			for (t = strtok_r(optarg, ",", &save);
			     t && in.nports < 256;
			     t = strtok_r(NULL, ",", &save)) {
				snprintf(ports[in.nports].name, IF_NAMESIZE,
					 "%s", t);
				ports[in.nports].ifindex = in.nports + 1;
				in.nports++;
			}
			continue;
		case 'n':
			in.vm_nets = optarg;
			continue;
		case 'c':
			in.call_iptables = !!strstr(optarg, "4");
			in.call_ip6tables = !!strstr(optarg, "6");
			in.call_arptables = !!strstr(optarg, "arp");
			continue;
		case '4':
			src = XN_FILT_IPT4;
			break;
		case '6':
			src = XN_FILT_IPT6;
			break;
		case 'e':
			src = XN_FILT_EBT;
			break;
		case 'a':
			src = XN_FILT_ARPT;
			break;
		case 'f':
			src = XN_FILT_NFT;
			break;
		default:
			return 2;
		}
		if (in.ntexts == 16)
			return 2;
		texts[in.ntexts].src = src;
		texts[in.ntexts].text = slurp(optarg);
		if (!texts[in.ntexts].text) {
			fprintf(stderr, "xn_filters: cannot read %s\n", optarg);
			return 2;
		}
		in.ntexts++;
		offline = 1;
	}
	if (optind + 1 != argc) {
		fprintf(stderr,
			"usage: xn_filters [--json] [options] BRIDGE\n");
		return 2;
	}
	in.bridge = argv[optind];
	if (!offline) {
		struct xn_link br;

		if (xn_get_link(in.bridge, &br) ||
		    xn_filt_read_live(br.ifindex, 0, &live)) {
			fprintf(stderr, "xn_filters: no bridge %s\n",
				in.bridge);
			return 3;
		}
		in = live.in;
	}
	rc = xn_filt_analyse(&in, &r);
	if (!rc)
		xn_filt_print(stdout, in.bridge, &r, json);
	xn_filt_report_free(&r);
	if (!offline)
		xn_filt_live_free(&live);
	for (i = 0; i < in.ntexts && offline; i++)
		free((char *)texts[i].text);
	return rc ? 1 : 0;
}
