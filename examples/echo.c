/* echo: a TCP echo server on the netpoller -- a goroutine accepting
 * connections and one goroutine per connection reading and writing back.
 *
 *   echo --listen PORT [PROCS]   serves 127.0.0.1:PORT until killed
 *   echo [PROCS [N]]             serves an ephemeral loopback port to 10
 *                                client goroutines in the same program,
 *                                N requests in all (10,000 by default), and
 *                                reports the time per request */
#include "examples/common.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CLIENTS 10

static struct sockaddr_in addr;
static sl_netfd *listener;
static long requests;
static sl_wg *clients;
static _Atomic long answered;
static _Atomic bool failed;   /* main's exit status is 1: what failed was printed */

static void serve_conn(void *arg)
{
	sl_netfd *c = arg;
	char buf[4096];
	ssize_t n;
	while ((n = sl_net_read(c, buf, sizeof(buf))) > 0)
		if (sl_net_write(c, buf, (size_t)n) != n)
			break;
	sl_net_close(c);
}

static void accept_loop(void *arg)
{
	(void)arg;
	sl_netfd *c;
	while ((c = sl_net_accept(listener)))
		sl_go(serve_conn, c);
}

static bool listen_on(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	addr = (struct sockaddr_in){ .sin_family = AF_INET,
				     .sin_port = htons((uint16_t)port),
				     .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(addr);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, len) != 0 || listen(fd, 128) != 0 ||
	    getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
		perror("echo: listen");
		return false;
	}
	listener = sl_net_open(fd);
	return listener != NULL;
}

static void client(void *arg)
{
	long n = (long)(intptr_t)arg;
	sl_netfd *s = sl_net_open(socket(AF_INET, SOCK_STREAM, 0));
	if (!s || sl_net_connect(s, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		perror("echo: connect");
		failed = true;
		if (s)
			sl_net_close(s);
		sl_wg_done(clients);
		return;
	}
	char req[64], resp[64];
	for (long i = 0; i < n; i++) {
		int len = snprintf(req, sizeof(req), "request %ld", i);
		if (sl_net_write(s, req, (size_t)len) != len)
			break;
		int got = 0;
		while (got < len) {
			ssize_t r = sl_net_read(s, resp + got, sizeof(resp) - (size_t)got);
			if (r <= 0)
				break;
			got += (int)r;
		}
		if (got != len || memcmp(req, resp, (size_t)len) != 0) {
			fprintf(stderr, "echo: wrong answer to '%s'\n", req);
			failed = true;
			break;
		}
		answered++;
	}
	sl_net_close(s);
	sl_wg_done(clients);
}

static void self_test(void *arg)
{
	(void)arg;
	if (!listen_on(0)) {
		failed = true;
		return;
	}
	sl_go(accept_loop, NULL);
	clients = sl_wg_new();
	int64_t t0 = sl_nanotime();
	sl_wg_add(clients, CLIENTS);
	for (long i = 0; i < CLIENTS; i++)
		sl_go(client, (void *)(intptr_t)(requests / CLIENTS + (i < requests % CLIENTS)));
	sl_wg_wait(clients);
	int64_t ns = sl_nanotime() - t0;
	sl_net_close(listener);
	sl_wg_free(clients);
	example_report("echo", requests, requests, answered, ns);
}

static int port;

static void serve(void *arg)
{
	(void)arg;
	if (!listen_on(port)) {
		failed = true;
		return;
	}
	printf("echo: serving 127.0.0.1:%d\n", ntohs(addr.sin_port));
	fflush(stdout);
	accept_loop(NULL);
}

int main(int argc, char **argv)
{
	int procs;
	if (argc >= 2 && strcmp(argv[1], "--listen") == 0) {
		char *end = NULL;
		long p = argc >= 3 ? strtol(argv[2], &end, 10) : -1;
		if (argc > 4 || !end || *end || end == argv[2] || p < 0 || p > 65535) {
			fprintf(stderr, "usage: %s --listen PORT [PROCS] (PORT from 0 to 65535)\n",
				argv[0]);
			return 2;
		}
		port = (int)p;
		/* PROCS, if given, reads as in every example */
		char *rest[] = { argv[0], argc == 4 ? argv[3] : NULL };
		long unused;
		example_args(argc == 4 ? 2 : 1, rest, &procs, &unused, 0);
		struct sl_options o = { .procs = procs };
		int rc = sl_run(&o, serve, NULL);
		return rc ? rc : failed;
	}
	example_args(argc, argv, &procs, &requests, 10000);
	struct sl_options o = { .procs = procs };
	int rc = sl_run(&o, self_test, NULL);
	return rc ? rc : failed;
}
