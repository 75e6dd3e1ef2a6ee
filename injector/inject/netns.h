/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-inject's lab: two network namespaces joined by a veth pair, the
 * device under test in one, the injector in the other.
 *
 *   mpainj<pid>i  (injector)                 mpainj<pid>d  (device)
 *   vinj<pid>  10.77.0.1/24  <--- veth --->  vdut<pid>  10.77.0.2/24
 *              fd6d:7061:1::1/64                        fd6d:7061:1::2/64
 *   raw_addr   10.77.0.3, fd6d:7061:1::3: configured nowhere; the raw
 *              transport owns it in userspace (ARP / ND answered by it)
 *
 * netns_lab_up() builds it with iproute2's `ip` and moves the calling
 * process into the injector's namespace, so both transports and libpcap
 * run there.  Forwarding is off in that namespace, which is what makes
 * its kernel drop (silently: no RST, no ICMP) the device's segments for
 * raw_addr.  Offloads (TSO, GSO, tx checksumming, GRO) are off on both
 * veth ends, so a capture shows real segments with real checksums.
 *
 * Cleanup, on every exit path (docs/mpa-inject-raw.md):
 *   - netns_lab_down(), from the program's normal exit or atexit (the
 *     program turns SIGINT/SIGTERM/SIGHUP into a normal exit);
 *   - a watcher process forked by netns_lab_up() that waits for the
 *     program to die (a pipe's end of file) and then removes the lab, so a
 *     SIGKILLed program leaves nothing either;
 *   - if the watcher is killed too: every netns_lab_up() first removes
 *     stale labs, those whose owner no longer holds its lock
 *     (/run/mpa-inject/lab-<pid>.lock, an flock the kernel releases when
 *     the owner dies), and netns_lab_clean() does the same on demand.
 *
 * Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN).  Not thread-safe; one lab
 * per process.
 */
#ifndef MPA_INJECT_NETNS_H
#define MPA_INJECT_NETNS_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct netns_lab {
    char inj[40], dut[40];            /* namespace names (ip netns) */
    char veth_inj[16], veth_dut[16];  /* interface names, in inj and dut */
    char inj_addr4[16], dut_addr4[16], raw_addr4[16];
    char inj_addr6[48], dut_addr6[48], raw_addr6[48];
    pid_t dut_pid;                    /* the device (netns_lab_spawn), 0: none */
    int up;                           /* 1 from netns_lab_up() until netns_lab_down() */
    /* private */
    int home_fd;                      /* the namespace the process came from */
    int lock_fd;                      /* holds /run/mpa-inject/lab-<pid>.lock */
    int watch_fd;                     /* write end of the watcher's pipe */
    pid_t watcher;
    char lock_path[64];
} netns_lab;

/* Build the lab (lab may be zero-filled or anything: every field is set)
 * and move the calling process into the injector's namespace.  0, or -1
 * and err naming the command that failed and why; on failure whatever
 * was created is removed again. */
int netns_lab_up(netns_lab *lab, char *err, size_t errlen);

/* Run `sh -c cmd` in the device's namespace, in a process group of its
 * own, stdin from /dev/null, stdout and stderr inherited, no other file
 * descriptors.  Returns its pid (also lab->dut_pid), or -1 and err.  An
 * earlier device still running is stopped first. */
pid_t netns_lab_spawn(netns_lab *lab, const char *cmd, char *err, size_t errlen);

/* Stop the device: SIGTERM to its process group, SIGKILL after 2 s to
 * whatever is left of it and to every other process in the device's
 * namespace; reaped.  Nothing when there is no device. */
void netns_lab_kill(netns_lab *lab);

/* Is something listening on host:port (numeric address, decimal port)
 * in the device's namespace, i.e. would a TCP connect succeed now?  With
 * a device running, its namespace's listening sockets are read
 * (/proc/PID/net/tcp, tcp6), so the device sees no probe connection;
 * without one, a connect from here with a 200 ms timeout.  1 or 0. */
int netns_lab_port_open(netns_lab *lab, const char *host, const char *port);

/* Kill the device and everything else in the lab, return the process to
 * the namespace it came from, delete both namespaces (the veth pair goes
 * with them).  Idempotent; safe from atexit and on a zero-filled lab. */
void netns_lab_down(netns_lab *lab);

/* Remove stale labs (mpainj<pid>[id] namespaces whose owner is gone);
 * what a `mpa-inject --lab-clean` option would call.  Returns how many namespaces
 * were removed; when log is not NULL, one line each is written to it. */
int netns_lab_clean(FILE *log);

#endif
