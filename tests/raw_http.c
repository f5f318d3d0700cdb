/*
 * raw_http.c: send standard input as is to 127.0.0.1:PORT and copy what comes back to
 * standard output until the server closes (or TIMEOUT seconds, 10 by default, pass).
 * For shell tests that need bytes curl will not send (repeated or folded framing
 * headers). Exit status 0 when the server closed, 1 on a timeout, 2 on a usage or
 * socket error.
 *
 * Usage: raw_http PORT [TIMEOUT] <request
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in addr = {.sin_family = AF_INET};
	static char request[1 << 20];
	size_t len = 0, sent = 0;
	int fd, timeout_ms = 10000;
	time_t start = time(NULL);

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: raw_http PORT [TIMEOUT] <request\n");
		return 2;
	}
	if (argc == 3)
		timeout_ms = atoi(argv[2]) * 1000;
	len = fread(request, 1, sizeof request, stdin);
	addr.sin_port = htons((unsigned short)atoi(argv[1]));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
		perror("raw_http: connect");
		return 2;
	}
	while (sent < len) {
		ssize_t n = send(fd, request + sent, len - sent, MSG_NOSIGNAL);

		if (n <= 0)
			break; /* the server closed early: read what it said */
		sent += (size_t)n;
	}
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		char buf[65536];
		ssize_t n;

		if ((time(NULL) - start) * 1000 > timeout_ms)
			return 1;
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof buf, 0);
		if (n <= 0)
			break;
		fwrite(buf, 1, (size_t)n, stdout);
	}
	close(fd);
	return 0;
}
