/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-replay: plays one scenario of the corpus (corpus/corpus.h) over a real TCP
 * connection on the loopback interface, both ends in this process, so
 * that `mpa-audit -i lo` can be tested on live traffic
 * (scripts/live-audit.sh).
 *
 *   mpa-replay PORT SLUG     e.g. mpa-replay 18600 crc-bad
 *   mpa-replay --list        the scenario slugs and their expected ids
 *
 * Each chunk of the scenario is one write(2) with TCP_NODELAY, a few
 * milliseconds apart so the kernel sends it as its own segment; CS_FIN is
 * shutdown(SHUT_WR), CS_RST a close with SO_LINGER 0.  Whatever arrives
 * is read and dropped.  Scenarios with holes or a mid-stream start cannot
 * be played live.  Exit status 0, or 2 with a message.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "corpus.h"

static void die(const char *what)
{
    fprintf(stderr, "mpa-replay: %s: %s\n", what, strerror(errno));
    exit(2);
}

static void drain(int fd)
{
    uint8_t buf[65536];
    while (fd >= 0) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0 || recv(fd, buf, sizeof buf, MSG_DONTWAIT) <= 0)
            return;
    }
}

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < cs_ncases; i++)
            printf("%s\t%s\n", cs_cases[i].slug, cs_cases[i].expect[0] ? cs_cases[i].expect : "-");
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: mpa-replay PORT SLUG | --list\n");
        return 2;
    }
    long port = strtol(argv[1], NULL, 10);
    if (port < 1 || port > 65535) {
        fprintf(stderr, "mpa-replay: bad port %s\n", argv[1]);
        return 2;
    }
    const cs_case *tc = NULL;
    for (size_t i = 0; i < cs_ncases; i++)
        if (strcmp(cs_cases[i].slug, argv[2]) == 0)
            tc = &cs_cases[i];
    if (!tc) {
        fprintf(stderr, "mpa-replay: no scenario %s (mpa-replay --list)\n", argv[2]);
        return 2;
    }
    cs_scen s;
    cs_init(&s);
    tc->build(&s);
    for (size_t c = 0; c < s.nch; c++)
        if (s.ch[c].kind == CS_LOST || s.midstream) {
            fprintf(stderr, "mpa-replay: %s has capture holes or a mid-stream start: not playable\n", argv[2]);
            return 2;
        }

    int ls = socket(AF_INET, SOCK_STREAM, 0);
    if (ls < 0)
        die("socket");
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0)
        die("bind");
    if (listen(ls, 1) != 0)
        die("listen");
    int fd[2];
    fd[0] = socket(AF_INET, SOCK_STREAM, 0);
    if (fd[0] < 0)
        die("socket");
    if (connect(fd[0], (struct sockaddr *)&sa, sizeof sa) != 0)
        die("connect");
    fd[1] = accept(ls, NULL, NULL);
    if (fd[1] < 0)
        die("accept");
    close(ls);
    for (int d = 0; d < 2; d++)
        setsockopt(fd[d], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    for (size_t c = 0; c < s.nch; c++) {
        const cs_chunk *ch = &s.ch[c];
        int d = ch->dir;
        pause_ms(5);
        drain(fd[0]);
        drain(fd[1]);
        if (fd[d] < 0)
            continue;
        if (ch->kind == CS_DATA) {
            size_t off = 0;
            while (off < ch->len) {
                ssize_t n = send(fd[d], s.buf + ch->off + off, ch->len - off, MSG_NOSIGNAL);
                if (n < 0) {
                    if (errno == EPIPE || errno == ECONNRESET)
                        break; /* the peer is gone: a scenario may do that */
                    die("send");
                }
                off += (size_t)n;
            }
        } else if (ch->kind == CS_FIN) {
            shutdown(fd[d], SHUT_WR);
        } else {
            struct linger lg = {1, 0};
            setsockopt(fd[d], SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
            close(fd[d]);
            fd[d] = -1;
        }
    }
    pause_ms(20);
    for (int d = 0; d < 2; d++) {
        drain(fd[d]);
        if (fd[d] >= 0)
            close(fd[d]);
    }
    cs_free(&s);
    return 0;
}
