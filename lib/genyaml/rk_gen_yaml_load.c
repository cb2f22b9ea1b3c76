/* SPDX-License-Identifier: BSD-3-Clause */
/* A stream file read whole into memory, then parsed (rk_gen_yaml.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen_yaml.h"

/* The file's bytes, or NULL with errno set. */
static char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (f == NULL)
		return NULL;
	errno = 0;
	do {
		if (n == cap) {
			char *nb;

			cap = cap ? cap * 2 : 65536;
			if (cap > RK_GEN_FILE_BYTES_MAX || (nb = realloc(buf, cap)) == NULL) {
				free(buf);
				fclose(f);
				errno = EFBIG;
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	if (ferror(f)) {
		/* what the read said (a directory: EISDIR), else EIO */
		int e = errno != 0 ? errno : EIO;

		free(buf);
		fclose(f);
		errno = e;
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

int
rk_gen_yaml_load(const char *path, struct rk_gen_file **out, char *err, size_t errlen)
{
	size_t len = 0;
	char *buf = read_file(path, &len);
	int rc;

	*out = NULL;
	if (buf == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	rc = rk_gen_yaml_parse(buf, len, path, out, err, errlen);
	free(buf);
	return rc;
}
