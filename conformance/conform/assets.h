/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fixed parts of the HTML report: the style sheet (screen and
 * print), the optional script (the verdict filter bar; the page reads
 * the same without it) and the legend of the ladder diagrams.  None of
 * them depends on the report.
 */
#ifndef CONFORM_ASSETS_H
#define CONFORM_ASSETS_H

#include <stdio.h>

/* The CSS rules (the text inside <style>). */
void assets_style(FILE *o);

/* The script (the text inside <script>). */
void assets_script(FILE *o);

/* The colour legend and how to read a ladder diagram. */
void assets_legend(FILE *o);

#endif
