/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the reports go; the HTML report to a file (reports.h). */
#include "reports.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "html.h"

int reports_mkdirs(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = 0;
            mkdir(p, 0777);
            *s = '/';
        }
    }
    return mkdir(p, 0777) && errno != EEXIST ? -1 : 0;
}

int reports_init(reports *rp, const char *out_dir, const char *json, const char *junit, const char *html)
{
    memset(rp, 0, sizeof *rp);
    rp->json = json;
    rp->junit = junit;
    rp->html = html;
    if (!out_dir)
        return 0;
    if (reports_mkdirs(out_dir))
        return -1;
    snprintf(rp->json_p, sizeof rp->json_p, "%.3000s/report.json", out_dir);
    snprintf(rp->junit_p, sizeof rp->junit_p, "%.3000s/junit.xml", out_dir);
    snprintf(rp->html_p, sizeof rp->html_p, "%.3000s/report.html", out_dir);
    if (!rp->json)
        rp->json = rp->json_p;
    if (!rp->junit)
        rp->junit = rp->junit_p;
    if (!rp->html)
        rp->html = rp->html_p;
    return 0;
}

int reports_traces(reports *rp)
{
    const char *anchor = rp->json && strcmp(rp->json, "-") ? rp->json : rp->html ? rp->html : NULL;
    if (!anchor)
        return 0;
    rp->traces = 1;
    snprintf(rp->base, sizeof rp->base, "%.3000s", anchor);
    char *sl = strrchr(rp->base, '/');
    if (sl)
        *sl = 0;
    else
        snprintf(rp->base, sizeof rp->base, ".");
    snprintf(rp->trace_dir, sizeof rp->trace_dir, "%.3000s/traces", rp->base);
    return reports_mkdirs(rp->trace_dir);
}

int reports_html(const cJSON *doc, const char *path, const char *base_dir, char *err, size_t errlen)
{
    FILE *hf = fopen(path, "w");
    if (!hf) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    if (conform_html(doc, base_dir, hf, err, errlen)) {
        fclose(hf);
        return -1;
    }
    if (fclose(hf)) {
        err[0] = 0;
        return -1;
    }
    return 0;
}
