/*
 * answer_cat.c: `answer_cat ENDPOINT [FILE]`: the request in FILE (or on stdin) answered
 * by the library's JSON entry point, ctd_answer() of the shared libcontactd, as a
 * program of a library user calls it (only contactd.h). Writes the answer's bytes to
 * stdout and its HTTP status on stderr; exits 0 when it wrote them (any status), 1 when
 * the library gave no answer. `answer_cat --endpoints` writes ctd_endpoints()'s text.
 * For tests/answer_test.sh, which compares the bytes with the daemon's and the CLI's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contactd.h"

int main(int argc, char **argv)
{
	FILE *in = argc > 2 ? fopen(argv[2], "rb") : stdin;
	char *body = NULL, *answer = NULL;
	size_t len = 0, size = 0, n, answer_len = 0;
	int status;

	if (argc == 2 && strcmp(argv[1], "--endpoints") == 0)
		return ctd_endpoints() && fputs(ctd_endpoints(), stdout) >= 0 ? 0 : 1;
	if (argc < 2 || !in) {
		fprintf(stderr, "usage: answer_cat ENDPOINT [FILE] | --endpoints\n");
		return 2;
	}
	do {
		if (len == size) {
			char *grown = realloc(body, size = size ? 2 * size : 4096);

			if (!grown)
				return 1;
			body = grown;
		}
		n = fread(body + len, 1, size - len, in);
		len += n;
	} while (n > 0);
	status = ctd_answer(argv[1], body, len, &answer, &answer_len);
	free(body);
	if (!answer)
		return 1;
	fwrite(answer, 1, answer_len, stdout);
	fprintf(stderr, "%d\n", status);
	ctd_answer_free(answer);
	return 0;
}
