/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa-inject's lab of two network namespaces; see netns.h and
 * docs/mpa-inject-raw.md.
 *
 * The namespaces and the veth pair are made by iproute2's `ip` (the
 * error it prints names the cause, and `ip` is what anyone would type to
 * reproduce a step); what `ip` cannot do is done here: switching
 * namespaces (setns), the offloads (the ethtool ioctl), the sysctls
 * (/proc/sys of the namespace the process is in), waiting for the link,
 * finding every process of a namespace (/proc/PID/ns/net).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setns, close_range, pipe2 */
#endif
#include "netns.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tp.h" /* tp_now_ms */

#define NETNS_DIR "/run/netns"
#define LOCK_DIR "/run/mpa-inject"
#define PREFIX "mpainj"

static void sleep_ms(int ms)
{
    poll(NULL, 0, ms);
}

/* ---- running a command ---------------------------------------------------- */

/* Runs argv (argv[0] from PATH), its stdout and stderr collected; at
 * most 10 s.  0 when it exits 0; else -1 and err: the command line, what
 * it printed and how it ended. */
static int run_cmd(char *const argv[], char *err, size_t errlen)
{
    char line[300] = "";
    size_t ll = 0;
    for (int i = 0; argv[i]; i++) {
        int k = snprintf(line + ll, sizeof line - ll, "%s%s", i ? " " : "", argv[i]);
        if (k < 0 || (size_t)k >= sizeof line - ll)
            break;
        ll += (size_t)k;
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC)) {
        snprintf(err, errlen, "`%s`: pipe: %s", line, strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "`%s`: fork: %s", line, strerror(errno));
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        dup2(p[1], 1);
        dup2(p[1], 2);
        close_range(3, ~0u, 0);
        signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvp(argv[0], argv);
        dprintf(2, "cannot run %s: %s", argv[0], strerror(errno));
        _exit(127);
    }
    close(p[1]);
    char out[400];
    size_t n = 0;
    int timed_out = 0;
    int64_t deadline = tp_now_ms() + 10000;
    for (;;) {
        int64_t left = deadline - tp_now_ms();
        if (left <= 0) {
            kill(pid, SIGKILL);
            timed_out = 1;
            break;
        }
        struct pollfd pf = {p[0], POLLIN, 0};
        int r = poll(&pf, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        char junk[256];
        char *dst = n < sizeof out - 1 ? out + n : junk;
        size_t cap = n < sizeof out - 1 ? sizeof out - 1 - n : sizeof junk;
        ssize_t k = read(p[0], dst, cap);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        if (dst == out + n)
            n += (size_t)k;
    }
    close(p[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    out[n] = 0;
    while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = 0;
    for (size_t i = 0; i < n; i++)
        if (out[i] == '\n')
            out[i] = ' ';
    if (!timed_out && WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    if (timed_out)
        snprintf(err, errlen, "`%s` did not finish in 10 s", line);
    else if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && !strncmp(out, "cannot run", 10))
        snprintf(err, errlen, "`%s`: %s%s", line, out, !strcmp(argv[0], "ip") ? " (install iproute2)" : "");
    else if (WIFEXITED(st))
        snprintf(err, errlen, "`%s` failed (exit status %d): %s", line, WEXITSTATUS(st), n ? out : "no message");
    else
        snprintf(err, errlen, "`%s` killed by signal %d", line, WTERMSIG(st));
    return -1;
}

/* `ip ARGS...` (NULL-terminated). */
static int ip(char *err, size_t errlen, ...)
{
    char *argv[24];
    int n = 0;
    argv[n++] = (char *)"ip";
    va_list ap;
    va_start(ap, errlen);
    char *a;
    while ((a = va_arg(ap, char *)) != NULL && n < 23)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    return run_cmd(argv, err, errlen);
}

/* ---- namespaces and their processes ------------------------------------- */

static int ns_open(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, NETNS_DIR "/%s", name);
    return open(path, O_RDONLY | O_CLOEXEC);
}

static int ns_enter(const char *name, char *err, size_t errlen)
{
    int fd = ns_open(name);
    if (fd < 0) {
        snprintf(err, errlen, "open " NETNS_DIR "/%s: %s", name, strerror(errno));
        return -1;
    }
    int rc = setns(fd, CLONE_NEWNET);
    int e = errno;
    close(fd);
    if (rc) {
        snprintf(err, errlen, "setns into network namespace %s: %s", name, strerror(e));
        return -1;
    }
    return 0;
}

/* The namespace's identity (its nsfs inode), or -1 when it does not exist. */
static int ns_ident(const char *name, dev_t *dev, ino_t *ino)
{
    char path[128];
    struct stat st;
    snprintf(path, sizeof path, NETNS_DIR "/%s", name);
    if (stat(path, &st))
        return -1;
    *dev = st.st_dev;
    *ino = st.st_ino;
    return 0;
}

/* Sends sig to every process in the namespace (dev, ino) but this one;
 * returns how many there were.  A process that has exited has no
 * namespace any more, so zombies do not count. */
static int signal_ns(dev_t dev, ino_t ino, int sig)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0;
    pid_t self = getpid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == self)
            continue;
        char path[64];
        struct stat st;
        snprintf(path, sizeof path, "/proc/%ld/ns/net", pid);
        if (stat(path, &st) || st.st_dev != dev || st.st_ino != ino)
            continue;
        if (kill((pid_t)pid, sig) == 0)
            n++;
    }
    closedir(d);
    return n;
}

/* Empties namespace `name` (SIGKILL, up to 2 s) and deletes it.  0 when
 * it is gone (or never was), else -1 and err. */
static int ns_remove(const char *name, char *err, size_t errlen)
{
    dev_t dev;
    ino_t ino;
    if (ns_ident(name, &dev, &ino))
        return 0;
    for (int i = 0; i < 200 && signal_ns(dev, ino, SIGKILL) > 0; i++)
        sleep_ms(10);
    return ip(err, errlen, "netns", "delete", name, (char *)NULL);
}

/* ---- interface settings (in the current namespace) ---------------------- */

/* Offloads off: the kernel then sends MTU-sized segments with real
 * checksums, so a capture shows what a wire would carry.  Best effort:
 * a device whose driver refuses is still usable. */
static void offloads_off(const char *ifname)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    static const uint32_t cmds[] = {ETHTOOL_STSO, ETHTOOL_SGSO, ETHTOOL_SGRO, ETHTOOL_STXCSUM};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        struct ethtool_value ev = {cmds[i], 0};
        struct ifreq ifr;
        memset(&ifr, 0, sizeof ifr);
        snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
        ifr.ifr_data = (void *)&ev;
        (void)ioctl(fd, SIOCETHTOOL, &ifr);
    }
    close(fd);
}

static int wait_running(const char *ifname, int64_t deadline, char *err, size_t errlen)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    for (;;) {
        struct ifreq ifr;
        memset(&ifr, 0, sizeof ifr);
        snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
        if (ioctl(fd, SIOCGIFFLAGS, &ifr)) {
            snprintf(err, errlen, "%s: SIOCGIFFLAGS: %s", ifname, strerror(errno));
            close(fd);
            return -1;
        }
        if ((ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING))
            break;
        if (tp_now_ms() >= deadline) {
            snprintf(err, errlen, "%s: the link did not come up in 5 s", ifname);
            close(fd);
            return -1;
        }
        sleep_ms(10);
    }
    close(fd);
    return 0;
}

static int write_proc(const char *path, const char *val, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "open %s: %s", path, strerror(errno));
        return -1;
    }
    ssize_t k = write(fd, val, strlen(val));
    int e = errno;
    close(fd);
    if (k != (ssize_t)strlen(val)) {
        snprintf(err, errlen, "write %s to %s: %s", val, path, k < 0 ? strerror(e) : "short write");
        return -1;
    }
    return 0;
}

/* ---- stale labs ------------------------------------------------------------ */

static void lock_path_of(char *out, size_t n, long pid)
{
    snprintf(out, n, LOCK_DIR "/lab-%ld.lock", pid);
}

/* "mpainj<pid>i" or "mpainj<pid>d": the pid, else 0. */
static long lab_name_pid(const char *name)
{
    size_t pl = strlen(PREFIX);
    if (strncmp(name, PREFIX, pl))
        return 0;
    char *end;
    long pid = strtol(name + pl, &end, 10);
    if (end == name + pl || pid <= 0 || (end[0] != 'i' && end[0] != 'd') || end[1])
        return 0;
    return pid;
}

int netns_lab_clean(FILE *log)
{
    DIR *d = opendir(NETNS_DIR);
    if (!d)
        return 0;
    char names[64][40];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 64) {
        size_t l = strlen(e->d_name);
        if (lab_name_pid(e->d_name) && l < sizeof names[0])
            memcpy(names[n++], e->d_name, l + 1);
    }
    closedir(d);
    int removed = 0;
    for (int i = 0; i < n; i++) {
        long pid = lab_name_pid(names[i]);
        char lp[64];
        lock_path_of(lp, sizeof lp, pid);
        /* The owner holds an flock on its lock file from before the
         * namespaces exist until after they are gone; the kernel drops it
         * when the owner dies, however it dies. */
        int fd = open(lp, O_RDWR | O_CLOEXEC);
        if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
            close(fd);
            continue; /* in use */
        }
        char err[400];
        if (ns_remove(names[i], err, sizeof err) == 0) {
            removed++;
            if (log)
                fprintf(log, "removed the stale lab namespace %s (its mpa-inject, pid %ld, is gone)\n", names[i], pid);
        } else if (log) {
            fprintf(log, "stale lab namespace %s: %s\n", names[i], err);
        }
        if (fd >= 0) {
            char a[40], b[40];
            dev_t dv;
            ino_t in;
            snprintf(a, sizeof a, PREFIX "%ldi", pid);
            snprintf(b, sizeof b, PREFIX "%ldd", pid);
            if (ns_ident(a, &dv, &in) && ns_ident(b, &dv, &in))
                unlink(lp);
            close(fd);
        }
    }
    return removed;
}

/* ---- the watcher ------------------------------------------------------------ */

/* A child that outlives a SIGKILLed owner just long enough to remove the
 * lab: it waits on a pipe whose only writer is the owner.  One octet
 * means "all clean, exit"; end of file means the owner died. */
static int start_watcher(netns_lab *lab, char *err, size_t errlen)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t w = fork();
    if (w < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (w == 0) {
        prctl(PR_SET_NAME, "mpa-inject-lab", 0, 0, 0);
        /* Ctrl-C or a kill of the whole group is the owner's business;
         * the watcher still has to clean up after it. */
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        signal(SIGPIPE, SIG_IGN);
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
        }
        /* only the pipe and stderr stay open (the lock's descriptor is
         * shared with the owner: closing ours keeps its lock) */
        if (p[0] != 3) {
            dup2(p[0], 3);
            fcntl(3, F_SETFD, FD_CLOEXEC);
        }
        close_range(4, ~0u, 0);
        char c;
        ssize_t k;
        do
            k = read(3, &c, 1);
        while (k < 0 && errno == EINTR);
        if (k == 1)
            _exit(0);
        char e2[400];
        int bad = 0;
        if (ns_remove(lab->dut, e2, sizeof e2)) {
            dprintf(2, "mpa-inject: lab cleanup: %s\n", e2);
            bad = 1;
        }
        if (ns_remove(lab->inj, e2, sizeof e2)) {
            dprintf(2, "mpa-inject: lab cleanup: %s\n", e2);
            bad = 1;
        }
        if (!bad)
            unlink(lab->lock_path);
        _exit(0);
    }
    close(p[0]);
    lab->watch_fd = p[1];
    lab->watcher = w;
    return 0;
}

/* ---- the lab ------------------------------------------------------------------ */

int netns_lab_up(netns_lab *lab, char *err, size_t errlen)
{
    memset(lab, 0, sizeof *lab);
    lab->home_fd = lab->lock_fd = lab->watch_fd = -1;
    long me = (long)getpid();
    snprintf(lab->inj, sizeof lab->inj, PREFIX "%ldi", me);
    snprintf(lab->dut, sizeof lab->dut, PREFIX "%ldd", me);
    snprintf(lab->veth_inj, sizeof lab->veth_inj, "vinj%ld", me);
    snprintf(lab->veth_dut, sizeof lab->veth_dut, "vdut%ld", me);
    snprintf(lab->inj_addr4, sizeof lab->inj_addr4, "10.77.0.1");
    snprintf(lab->dut_addr4, sizeof lab->dut_addr4, "10.77.0.2");
    snprintf(lab->raw_addr4, sizeof lab->raw_addr4, "10.77.0.3");
    snprintf(lab->inj_addr6, sizeof lab->inj_addr6, "fd6d:7061:1::1");
    snprintf(lab->dut_addr6, sizeof lab->dut_addr6, "fd6d:7061:1::2");
    snprintf(lab->raw_addr6, sizeof lab->raw_addr6, "fd6d:7061:1::3");
    lock_path_of(lab->lock_path, sizeof lab->lock_path, me);

    netns_lab_clean(NULL);

    lab->home_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (lab->home_fd < 0) {
        snprintf(err, errlen, "open /proc/self/ns/net: %s", strerror(errno));
        return -1;
    }
    if (mkdir(LOCK_DIR, 0755) && errno != EEXIST) {
        snprintf(err, errlen, "mkdir " LOCK_DIR ": %s%s", strerror(errno),
                 errno == EACCES ? " (the lab needs root)" : "");
        close(lab->home_fd);
        lab->home_fd = -1;
        return -1;
    }
    int lr = -1;
    for (int tries = 0; tries < 5; tries++) {
        lab->lock_fd = open(lab->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (lab->lock_fd < 0)
            break;
        while ((lr = flock(lab->lock_fd, LOCK_EX)) != 0 && errno == EINTR)
            ;
        /* A cleaner that held the file (stale namespaces of an earlier
         * process with our pid) unlinks it when done: lock the file that
         * is at the path now, or a later cleaner would not see our lock. */
        struct stat a, b;
        if (lr || (fstat(lab->lock_fd, &a) == 0 && stat(lab->lock_path, &b) == 0 && a.st_ino == b.st_ino &&
                   a.st_dev == b.st_dev))
            break;
        close(lab->lock_fd);
        lab->lock_fd = -1;
        lr = -1;
        errno = EAGAIN;
    }
    if (lr) {
        snprintf(err, errlen, "lock %s: %s%s", lab->lock_path, strerror(errno),
                 errno == EACCES || errno == EPERM ? " (the lab needs root)" : "");
        if (lab->lock_fd >= 0)
            close(lab->lock_fd);
        close(lab->home_fd);
        lab->lock_fd = lab->home_fd = -1;
        return -1;
    }
    if (start_watcher(lab, err, errlen)) {
        unlink(lab->lock_path);
        close(lab->lock_fd);
        close(lab->home_fd);
        lab->lock_fd = lab->home_fd = -1;
        return -1;
    }
    lab->up = 1;

    char a4[40], a6[64];
    int bad = ip(err, errlen, "netns", "add", lab->inj, (char *)NULL) ||
              ip(err, errlen, "netns", "add", lab->dut, (char *)NULL) ||
              ip(err, errlen, "link", "add", lab->veth_inj, "netns", lab->inj, "type", "veth", "peer", "name",
                 lab->veth_dut, "netns", lab->dut, (char *)NULL);
    for (int side = 0; side < 2 && !bad; side++) {
        const char *ns = side ? lab->dut : lab->inj;
        const char *dev = side ? lab->veth_dut : lab->veth_inj;
        snprintf(a4, sizeof a4, "%s/24", side ? lab->dut_addr4 : lab->inj_addr4);
        snprintf(a6, sizeof a6, "%s/64", side ? lab->dut_addr6 : lab->inj_addr6);
        bad = ip(err, errlen, "-n", ns, "link", "set", "lo", "up", (char *)NULL) ||
              ip(err, errlen, "-n", ns, "addr", "add", a4, "dev", dev, (char *)NULL) ||
              ip(err, errlen, "-n", ns, "-6", "addr", "add", a6, "dev", dev, "nodad", (char *)NULL) ||
              ip(err, errlen, "-n", ns, "link", "set", dev, "up", (char *)NULL);
    }
    int64_t deadline = tp_now_ms() + 5000;
    /* the device's side, then ours for good */
    if (!bad)
        bad = ns_enter(lab->dut, err, errlen);
    if (!bad) {
        offloads_off(lab->veth_dut);
        bad = wait_running(lab->veth_dut, deadline, err, errlen);
    }
    if (!bad)
        bad = ns_enter(lab->inj, err, errlen);
    if (!bad) {
        offloads_off(lab->veth_inj);
        /* Forwarding off: a segment for an address this kernel does not
         * have is then dropped without an answer (no RST, no ICMP). */
        bad = write_proc("/proc/sys/net/ipv4/ip_forward", "0", err, errlen) ||
              write_proc("/proc/sys/net/ipv6/conf/all/forwarding", "0", err, errlen) ||
              wait_running(lab->veth_inj, deadline, err, errlen);
    }
    if (bad) {
        netns_lab_down(lab);
        return -1;
    }
    return 0;
}

pid_t netns_lab_spawn(netns_lab *lab, const char *cmd, char *err, size_t errlen)
{
    if (!lab->up) {
        snprintf(err, errlen, "the lab is not up");
        return -1;
    }
    if (lab->dut_pid > 0)
        netns_lab_kill(lab);
    int nsfd = ns_open(lab->dut);
    if (nsfd < 0) {
        snprintf(err, errlen, "open " NETNS_DIR "/%s: %s", lab->dut, strerror(errno));
        return -1;
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close(nsfd);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(nsfd);
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        if (setns(nsfd, CLONE_NEWNET)) {
            dprintf(p[1], "setns into %s: %s", lab->dut, strerror(errno));
            _exit(127);
        }
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        static const int sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            signal(sigs[i], SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (p[1] != 3) {
            dup2(p[1], 3);
            fcntl(3, F_SETFD, FD_CLOEXEC);
        }
        close_range(4, ~0u, 0);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        dprintf(3, "exec /bin/sh: %s", strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no race with a kill of the group */
    close(nsfd);
    close(p[1]);
    char msg[300];
    ssize_t k;
    do
        k = read(p[0], msg, sizeof msg - 1);
    while (k < 0 && errno == EINTR);
    close(p[0]);
    if (k > 0) {
        msg[k] = 0;
        snprintf(err, errlen, "starting the device `%s`: %s", cmd, msg);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return -1;
    }
    lab->dut_pid = pid;
    return pid;
}

void netns_lab_kill(netns_lab *lab)
{
    pid_t pid = lab->dut_pid;
    if (pid <= 0)
        return;
    kill(-pid, SIGTERM);
    kill(pid, SIGTERM);
    int reaped = 0;
    int64_t until = tp_now_ms() + 2000;
    while (tp_now_ms() < until) {
        if (!reaped) {
            pid_t r = waitpid(pid, NULL, WNOHANG);
            if (r == pid || (r < 0 && errno == ECHILD))
                reaped = 1;
        }
        /* the whole group: `sh -c 'a & b'` leaves a behind when sh ends */
        if (reaped && kill(-pid, 0) && errno == ESRCH)
            break;
        sleep_ms(10);
    }
    kill(-pid, SIGKILL);
    if (!reaped) {
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    /* whatever left the group but not the namespace */
    dev_t dev;
    ino_t ino;
    if (lab->up && ns_ident(lab->dut, &dev, &ino) == 0)
        for (int i = 0; i < 200 && signal_ns(dev, ino, SIGKILL) > 0; i++)
            sleep_ms(10);
    lab->dut_pid = 0;
}

/* ---- is the device listening? -------------------------------------------------- */

/* One /proc/net/tcp{,6} file: a LISTEN socket on port whose address is
 * want (len 4 or 16) or the wildcard (or, in tcp6, ::ffff:want). */
static int listening_in(const char *path, const uint8_t *want, size_t wlen, unsigned port)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char line[512];
    int found = 0;
    int v6 = strstr(path, "tcp6") != NULL;
    if (!fgets(line, sizeof line, f)) { /* the header */
        fclose(f);
        return 0;
    }
    while (!found && fgets(line, sizeof line, f)) {
        char hex[40];
        unsigned lport, st;
        if (sscanf(line, " %*d: %39[0-9A-Fa-f]:%x %*s %x", hex, &lport, &st) != 3)
            continue;
        if (st != 0x0A || lport != port || strlen(hex) != (v6 ? 32u : 8u))
            continue;
        /* each 32-bit word is printed as the host-order value of the
         * network-order octets */
        uint8_t a[16];
        for (size_t w = 0; w < strlen(hex) / 8; w++) {
            char word[9];
            memcpy(word, hex + 8 * w, 8);
            word[8] = 0;
            uint32_t v = (uint32_t)strtoul(word, NULL, 16);
            memcpy(a + 4 * w, &v, 4);
        }
        static const uint8_t zero[16];
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (!v6)
            found = wlen == 4 && (!memcmp(a, want, 4) || !memcmp(a, zero, 4));
        else if (wlen == 16)
            found = !memcmp(a, want, 16) || !memcmp(a, zero, 16);
        else
            found = !memcmp(a, zero, 16) || (!memcmp(a, mapped, 12) && !memcmp(a + 12, want, 4));
    }
    fclose(f);
    return found;
}

static int connect_probe(const char *host, unsigned port)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        sl = sizeof *s4;
    } else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        sl = sizeof *s6;
    } else {
        return 0;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    int ok = 0;
    if (connect(fd, (struct sockaddr *)&ss, sl) == 0) {
        ok = 1;
    } else if (errno == EINPROGRESS) {
        struct pollfd pf = {fd, POLLOUT, 0};
        if (poll(&pf, 1, 200) == 1) {
            int soerr = 1;
            socklen_t el = sizeof soerr;
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &el);
            ok = soerr == 0;
        }
    }
    close(fd);
    return ok;
}

int netns_lab_port_open(netns_lab *lab, const char *host, const char *port)
{
    char *end;
    unsigned long pn = strtoul(port ? port : "", &end, 10);
    if (!host || !port || *end || end == port || pn > 65535)
        return 0;
    uint8_t want[16];
    size_t wlen;
    if (inet_pton(AF_INET, host, want) == 1)
        wlen = 4;
    else if (inet_pton(AF_INET6, host, want) == 1)
        wlen = 16;
    else
        return 0;
    if (!lab->up || lab->dut_pid <= 0)
        return connect_probe(host, (unsigned)pn);
    /* Look at the device's namespace from inside it: /proc/self/net is
     * the namespace the process is in now. */
    int back = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int dfd = ns_open(lab->dut);
    if (back < 0 || dfd < 0 || setns(dfd, CLONE_NEWNET)) {
        if (back >= 0)
            close(back);
        if (dfd >= 0)
            close(dfd);
        return connect_probe(host, (unsigned)pn);
    }
    close(dfd);
    int found = listening_in("/proc/self/net/tcp", want, wlen, (unsigned)pn) ||
                listening_in("/proc/self/net/tcp6", want, wlen, (unsigned)pn);
    if (setns(back, CLONE_NEWNET)) {
        /* cannot happen (we were there a moment ago); stay usable */
        fprintf(stderr, "mpa-inject: lab: back to the injector's namespace: %s\n", strerror(errno));
    }
    close(back);
    return found;
}

void netns_lab_down(netns_lab *lab)
{
    if (!lab->up)
        return;
    netns_lab_kill(lab);
    if (lab->home_fd >= 0) {
        if (setns(lab->home_fd, CLONE_NEWNET))
            fprintf(stderr, "mpa-inject: lab: back to the original namespace: %s\n", strerror(errno));
        close(lab->home_fd);
        lab->home_fd = -1;
    }
    char err[400];
    int bad = 0;
    if (ns_remove(lab->dut, err, sizeof err)) {
        fprintf(stderr, "mpa-inject: lab cleanup: %s\n", err);
        bad = 1;
    }
    if (ns_remove(lab->inj, err, sizeof err)) {
        fprintf(stderr, "mpa-inject: lab cleanup: %s\n", err);
        bad = 1;
    }
    if (bad)
        fprintf(stderr, "mpa-inject: lab: remove what is left with `ip netns delete NAME` (ip netns list | grep "
                        PREFIX ")\n");
    if (lab->lock_fd >= 0) {
        if (!bad)
            unlink(lab->lock_path);
        close(lab->lock_fd);
        lab->lock_fd = -1;
    }
    if (lab->watch_fd >= 0) {
        /* "all clean": the watcher exits without touching anything */
        ssize_t k;
        do
            k = write(lab->watch_fd, "x", 1);
        while (k < 0 && errno == EINTR);
        close(lab->watch_fd);
        lab->watch_fd = -1;
        while (lab->watcher > 0 && waitpid(lab->watcher, NULL, 0) < 0 && errno == EINTR)
            ;
        lab->watcher = 0;
    }
    lab->up = 0;
}
