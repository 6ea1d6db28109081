/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "node/netlocal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static uint8_t prefix_of(const struct sockaddr *mask)
{
	uint32_t m =
	        mask ? ntohl(((const struct sockaddr_in *)mask)->sin_addr.s_addr) : 0xffffffffu;
	uint8_t bits = 0;

	while (m & 0x80000000u) {
		bits++;
		m <<= 1;
	}
	return bits;
}

int netlocal_addrs(struct dist_addr_list *list, struct dist_err *err)
{
	struct ifaddrs *all;

	list->count = 0;
	if (getifaddrs(&all) != 0)
		return dist_err_set(err, "cannot list network interfaces: %s", strerror(errno));
	for (struct ifaddrs *i = all; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
			continue;
		dist_addr_list_add(list, i->ifa_name,
		                   ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr),
		                   prefix_of(i->ifa_netmask));
	}
	freeifaddrs(all);
	return 0;
}

uint32_t netlocal_route_src(uint32_t addr)
{
	struct sockaddr_in peer = {.sin_family = AF_INET, .sin_port = htons(9)};
	struct sockaddr_in self;
	socklen_t len = sizeof(self);
	uint32_t src = 0;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 0;
	/* Connecting a UDP socket sends nothing; it only asks the routing table. */
	peer.sin_addr.s_addr = htonl(addr);
	if (connect(fd, (struct sockaddr *)&peer, sizeof(peer)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&self, &len) == 0)
		src = ntohl(self.sin_addr.s_addr);
	close(fd);
	return src;
}

int netlocal_resolve(const char *host, uint32_t *addr)
{
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM};
	struct addrinfo *res;

	if (dist_ipv4_parse(host, addr) == 0)
		return 0;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return -1;
	*addr = ntohl(((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr);
	freeaddrinfo(res);
	return 0;
}

/* Binds like a server would (SO_REUSEADDR, as PyTorch's TCPStore does), so a
 * port held only by connections in TIME_WAIT still counts as free. */
static bool can_bind(int family, uint16_t port)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	int one = 1, fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return errno == EAFNOSUPPORT; /* no IPv6 on this node: nothing can hold it there */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		s6->sin6_addr = in6addr_any;
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		len = sizeof(*s4);
	}
	ok = bind(fd, (struct sockaddr *)&ss, len) == 0 ||
	     (family == AF_INET6 && errno == EADDRNOTAVAIL);
	close(fd);
	return ok;
}

bool netlocal_port_free(uint16_t port, void *unused)
{
	(void)unused;
	return can_bind(AF_INET, port) && can_bind(AF_INET6, port);
}

int netlocal_listen(uint16_t port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 128) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

struct listen_try {
	uint16_t avoid;
	int fd;
};

static bool try_listen(uint16_t port, void *ctx)
{
	struct listen_try *t = ctx;

	return port != t->avoid && (t->fd = netlocal_listen(port)) >= 0;
}

int netlocal_listen_any(const struct dist_port_range *range, uint16_t first, uint16_t avoid,
                        uint16_t *port)
{
	struct listen_try t = {.avoid = avoid, .fd = -1};
	struct dist_err ignored;

	return dist_port_pick(range, first, try_listen, &t, port, &ignored) == 0 ? t.fd : -1;
}
