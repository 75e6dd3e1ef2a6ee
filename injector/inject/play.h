/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Playing scenarios against a device: what mpa-inject and mpa-conform
 * share.  A "player" holds the settings common to every run (transport,
 * addresses, how the device is started) and, when it starts the device
 * itself (--spawn on this host, --lab in a network-namespace lab), the
 * device's process: started afresh for each scenario, stopped after it.
 * A run's report, as text and as JSON, is in result.h (included here).
 */
#ifndef MPA_INJECT_PLAY_H
#define MPA_INJECT_PLAY_H

#include <stdio.h>
#include <sys/types.h>

#include "netns.h"
#include "result.h"
#include "run.h"
#include "scen.h"

typedef struct play_cfg {
    const char *transport;      /* "socket" or "raw" */
    int family;                 /* 0, 4 or 6 */
    const char *bind, *iface, *src, *gw_mac;
    uint16_t src_port, mss;
    const char *target;         /* --target [HOST:]PORT, or NULL */
    const char *listen_at;      /* --listen [ADDR:]PORT, or NULL */
    const char *lab_cmd;        /* --lab COMMAND, or NULL */
    const char *spawn_cmd;      /* --spawn COMMAND, or NULL */
    FILE *progress;             /* step lines (NULL: quiet) */
    int verbose;
} play_cfg;

typedef struct player {
    play_cfg c;
    char thost[256], tport[16], lhost[256], lport[16];
    int raw;
    /* the device we start, if any */
    netns_lab lab;
    const char *cmd;
    int netns;
    char port[16];
    pid_t dev;
    int dev_started;
} player;

/* Check the settings (nothing is started).  0, or -1 + err (a usage
 * error: "--target x: expected HOST:PORT ..."). */
int play_init(player *P, const play_cfg *c, char *err, size_t errlen);

/* Get ready to start the device: for --lab, build the lab (the process
 * moves into its namespace).  Whatever is started goes at exit too.
 * 0, or -1 + err. */
int play_start(player *P, char *err, size_t errlen);

/* What a scenario needs that the settings lack ("the device is the
 * Responder: say where it listens ..."), or NULL. */
const char *play_missing(const player *P, const scenario *s, char *buf, size_t n);

/* Run s (starting and stopping the device when we start it); the trace
 * goes to trace_path (NULL: none).  Fills *r (run_result_free it). */
void play_run(player *P, const scenario *s, const char *trace_path, run_result *r);

/* SIGINT, SIGTERM and SIGHUP set run_interrupted (the run stops at its
 * next wait, the device and the lab are cleaned up, exit status 2);
 * SIGPIPE is ignored. */
void play_catch_signals(void);

/* Stop everything (the lab goes); safe to call twice. */
void play_done(player *P);

/* A whole decimal number in [min, max] (no sign tricks, no trailing
 * text): 0 and *out, or -1. */
int play_num_arg(const char *arg, long min, long max, long *out);

/* Each "{key}" of tmpl replaced by its value (keys[i] -> vals[i], keys
 * NULL-terminated), into out (n octets, cut short if need be). */
void play_expand(const char *tmpl, const char *const *keys, const char *const *vals, char *out, size_t n);

/* HOST:PORT, [V6]:PORT or (need_host 0) PORT.  0 or -1. */
int play_split_hostport(const char *s, char *host, size_t hn, char *port, size_t pn, int need_host);

/* DIR/NAME.pcapng for scenario i of sc (a safe file name; -2, -3 when
 * an earlier scenario has the same name). */
void play_trace_name(char *out, size_t n, const char *dir, const scenario *sc, int i);

#endif
