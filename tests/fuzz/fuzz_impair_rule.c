/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Impairment rule text (rk_impair_rule_parse, as rk-testpmd's "impair add"
 * reads it): any input is a rule or a refusal with a reason, never a crash;
 * a rule written back by rk_impair_rule_format parses to the same rule.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_impair.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_impair_rule r, again;
	char *text = malloc(size + 1);
	char err[128], back[512];

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (rk_impair_rule_parse(text, &r, err, sizeof(err)) == 0) {
		rk_impair_rule_format(&r, back, sizeof(back));
		if (rk_impair_rule_parse(back, &again, err, sizeof(err)) != 0 ||
		    memcmp(&again.match, &r.match, sizeof(r.match)) != 0 ||
		    again.drop_every != r.drop_every || again.mtu != r.mtu || again.seed != r.seed)
			abort();
	} else if (err[0] == '\0') {
		abort();
	}
	free(text);
	return 0;
}
