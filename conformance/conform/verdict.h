/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Verdicts in the HTML report.  A verdict string of the report selects
 * one of our own entries (label, class name); the report's own string is
 * never written into an attribute.
 */
#ifndef CONFORM_VERDICT_H
#define CONFORM_VERDICT_H

#include <stdio.h>

typedef enum vd { VD_PASS, VD_FAIL, VD_ERROR, VD_SKIP, VD_DONE, VD_NOTRUN, VD_UNKNOWN } vd;

typedef struct vd_info {
    const char *json;  /* as in the report; NULL for VD_UNKNOWN */
    const char *label; /* as the page shows it */
    const char *cls;   /* the class-name suffix (v-, r-, t-) */
} vd_info;

extern const vd_info vd_tab[VD_UNKNOWN + 1];

/* The verdict a string names; VD_UNKNOWN for NULL or anything else. */
vd vd_of(const char *s);

/* A test's verdict: the step-only verdicts (done, not run) are unknown. */
vd vd_of_test(const char *s);

/* The badge: colour and a text label, never colour alone; an unknown
 * verdict shows raw (cut short, escaped) or "(none)". */
void vd_badge(FILE *o, vd v, const char *raw);

#endif
