/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The style sheet, script and legend of the HTML report (assets.h). */
#include "assets.h"

/* One string per rule group: C11 promises string literals of 4095 octets only. */
static const char *const css[] = {
    ":root{--pass:#1a7f37;--fail:#cf222e;--error:#b35900;--skip:#6e7781;--ink:#1f2328;--mute:#57606a;"
    "--line:#d0d7de;--bg2:#f6f8fa}\n",
    "*{box-sizing:border-box}\n",
    "html{-webkit-print-color-adjust:exact;print-color-adjust:exact}\n",
    "body{font:14px/1.45 \"DejaVu Sans\",\"Segoe UI\",Helvetica,Arial,sans-serif;color:var(--ink);"
    "max-width:1080px;margin:0 auto;padding:24px 28px 60px}\n",
    "code,.mono{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;font-size:12px}\n",
    "h1{font-size:26px;margin:0 0 2px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid var(--line);"
    "padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}\n",
    ".sub{color:var(--mute);margin:0 0 14px}\n",
    "a{color:#0550ae}\n",
    "dl.kv{display:grid;grid-template-columns:11em 1fr;gap:2px 14px;margin:8px 0}"
    "dl.kv dt{color:var(--mute)}dl.kv dd{margin:0;overflow-wrap:anywhere}\n",
    ".banner{border:2px solid;border-left-width:14px;border-radius:4px;padding:12px 18px;margin:18px 0}"
    ".banner .big{font-size:24px;font-weight:700;letter-spacing:.02em}.banner p{margin:4px 0 0}\n",
    ".banner.b-pass{border-color:var(--pass);background:#dafbe1}.banner.b-fail{border-color:var(--fail);"
    "background:#ffebe9}.banner.b-error{border-color:var(--error);background:#fff1e5}.banner.b-skip{"
    "border-color:var(--skip);background:var(--bg2)}\n",
    "table{border-collapse:collapse;width:100%;margin:6px 0 10px}th,td{border-bottom:1px solid var(--line);"
    "padding:4px 8px;text-align:left;vertical-align:top}th{background:var(--bg2);font-weight:600;font-size:13px}\n",
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n",
    "table.counts{width:auto;min-width:560px}table.counts td.n,table.counts th.n{min-width:5em}"
    "table.counts td.hot{font-weight:700}\n",
    ".v{display:inline-block;min-width:4.6em;text-align:center;padding:1px 6px;border-radius:3px;font-weight:700;"
    "font-size:12px;color:#fff;letter-spacing:.04em;white-space:nowrap}\n",
    ".v-pass{background:var(--pass)}.v-fail{background:var(--fail)}.v-error{background:var(--error)}"
    ".v-skip{background:var(--skip)}.v-done{background:#fff;color:var(--ink);border:1px solid var(--line);"
    "font-weight:400}.v-notrun{background:#fff;color:var(--skip);border:1px dashed var(--skip);font-weight:400}"
    ".v-unknown{background:#fff;color:#8250df;border:1px solid #8250df}\n",
    ".c-pass{color:var(--pass)}.c-fail{color:var(--fail)}.c-error{color:var(--error)}.c-skip{color:var(--skip)}\n",
    "tr.r-fail td{background:#fff5f5}tr.r-error td{background:#fff8f0}tr.r-notrun td{color:#8c959f}\n",
    "table.tests td:nth-child(2) code{white-space:nowrap}.why1{font-size:12px;color:var(--mute);"
    "overflow-wrap:anywhere}tr.r-fail .why1{color:#a40e26}tr.r-error .why1{color:#8a4600}\n",
    ".reqs{font-size:12px;color:var(--mute)}.rid,table.reqt td:first-child,td.n{white-space:nowrap}\n",
    ".broken{font-size:12px;color:#a40e26;overflow-wrap:anywhere}ul.broken{font-size:inherit}"
    "table.cov td{vertical-align:top}table.cov tr.r-fail td:first-child{border-left:4px solid var(--fail)}\n",
    "section.test{margin-top:36px;border-top:4px solid var(--line);padding-top:6px}"
    "section.test.t-pass{border-top-color:var(--pass)}section.test.t-fail{border-top-color:var(--fail)}"
    "section.test.t-error{border-top-color:var(--error)}\n",
    "section.test h2{border:0;margin:6px 0 2px;display:flex;gap:12px;align-items:center;flex-wrap:wrap}"
    "section.test h2 code{font-size:19px}\n",
    ".meta{color:var(--mute);margin:0 0 10px;font-size:13px}\n",
    ".verdict{border-left:6px solid;padding:8px 12px;margin:10px 0;background:var(--bg2)}"
    ".verdict.t-pass{border-color:var(--pass);background:#f0fff4}.verdict.t-fail{border-color:var(--fail);"
    "background:#fff5f5}.verdict.t-error{border-color:var(--error);background:#fff8f0}.verdict.t-skip{"
    "border-color:var(--skip)}\n",
    ".verdict .why{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;font-size:12px;"
    "overflow-wrap:anywhere;white-space:pre-wrap;margin-top:4px}\n",
    ".quirk{border:1px solid #d4a72c;background:#fff8c5;border-radius:4px;padding:6px 10px;margin:6px 0}"
    ".quirk .ql{display:inline-block;background:#9a6700;color:#fff;font-weight:700;font-size:11px;"
    "padding:0 6px;border-radius:3px;margin-right:6px;letter-spacing:.05em}\n",
    ".problems{border:1px dashed #8250df;background:#fbefff;padding:6px 10px;margin:8px 0;font-size:13px}"
    ".problems ul{margin:4px 0 0;padding-left:20px}\n",
    "table.steps td.t,table.steps td.d{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;font-size:11.5px;"
    "overflow-wrap:anywhere;word-break:break-word}table.steps td.t{width:42%}\n",
    "table.steps .note{font-family:\"DejaVu Sans\",sans-serif;font-style:italic;color:var(--mute);"
    "display:block;margin-top:2px}\n",
    ".lvl{font-weight:700;font-size:12px}.lvl-MUST{color:var(--fail)}.lvl-SHOULD{color:#9a6700}\n",
    ".mute{color:var(--mute);font-size:12.5px}.nodl{color:var(--mute);font-style:italic}\n",
    "a.trace{font-weight:600}\n",
    "figure.ladder{margin:8px 0 12px;border:1px solid var(--line);border-radius:4px;padding:6px;background:#fff}"
    "figure.ladder figcaption{color:var(--mute);font-size:12px}\n",
    "svg.lad{display:block;margin:0 auto;max-width:100%;height:auto;font-family:\"DejaVu Sans\",Helvetica,Arial,sans-serif}\n",
    "svg.lad text{font-size:12px;fill:var(--ink)}\n",
    "svg.lad .hd rect{fill:var(--bg2);stroke:#8c959f}svg.lad .hn{font-weight:700;font-size:14px}"
    "svg.lad .hr{fill:var(--mute)}svg.lad .ha{font-size:11px;fill:var(--mute)}\n",
    "svg.lad .life{stroke:#8c959f;stroke-width:1.5;stroke-dasharray:5 4}\n",
    "svg.lad .mh{font-size:10.5px;fill:var(--mute);text-transform:uppercase;letter-spacing:.06em}\n",
    "svg.lad .ix{font-weight:700;fill:var(--mute)}svg.lad .tm{font-size:11px;fill:var(--mute)}\n",
    "svg.lad line{stroke-width:1.6}svg.lad .sub{font-size:10.5px;fill:var(--mute)}\n",
    "svg.lad .sp line{stroke:var(--ink)}svg.lad .sp polygon,svg.lad .sp circle{fill:var(--ink)}\n",
    "svg.lad .st line{stroke:#0969da}svg.lad .st polygon,svg.lad .st circle{fill:#0969da}"
    "svg.lad .st .lb{fill:#0550ae}\n",
    "svg.lad .sok line{stroke:var(--pass)}svg.lad .sok polygon,svg.lad .sok circle{fill:var(--pass)}"
    "svg.lad .sok .lb{fill:#116329}\n",
    "svg.lad .sf line{stroke:var(--fail);stroke-width:2.6}svg.lad .sf polygon,svg.lad .sf circle{fill:var(--fail)}"
    "svg.lad .sf .lb{fill:var(--fail);font-weight:700}\n",
    "svg.lad .se line{stroke:var(--error);stroke-width:2.6;stroke-dasharray:9 4}svg.lad .se polygon,"
    "svg.lad .se circle{fill:var(--error)}svg.lad .se .lb{fill:var(--error);font-weight:700}\n",
    "svg.lad .sn line{stroke:#afb8c1}svg.lad .sn polygon,svg.lad .sn circle{fill:#afb8c1}"
    "svg.lad .sn text{fill:#8c959f;font-style:italic}svg.lad .sn .ix{fill:#afb8c1}\n",
    "svg.lad .x{stroke:var(--ink);stroke-width:2.4;fill:none}svg.lad .sf .x{stroke:var(--fail)}"
    "svg.lad .se .x{stroke:var(--error)}svg.lad .st .x{stroke:#0969da}svg.lad .sn .x{stroke:#afb8c1}\n",
    "svg.lad .gap{fill:var(--bg2);stroke:#d0d7de}svg.lad .gl{font-style:italic;fill:var(--mute);font-size:11.5px}\n",
    "svg.lad .miss{fill:#fff5f5;stroke:var(--fail);stroke-dasharray:5 3}\n",
    "svg.lad .se .miss{fill:#fff8f0;stroke:var(--error)}\n",
    "svg.lad .rbox{fill:#fff5f5;stroke:var(--fail);stroke-width:1.2}svg.lad .se .rbox{fill:#fff8f0;"
    "stroke:var(--error)}\n",
    "svg.lad .rh{font-weight:700;fill:var(--fail)}svg.lad .se .rh{fill:var(--error)}"
    "svg.lad .rt{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;font-size:11px}\n",
    "svg.lad .pause path{stroke:#57606a;fill:none;stroke-width:1.5}svg.lad .pause rect{fill:#fff}\n",
    ".legend{display:flex;flex-wrap:wrap;gap:6px 22px;font-size:12.5px;color:var(--mute);margin:6px 0}"
    ".legend i{display:inline-block;width:28px;height:0;border-top:2px solid;vertical-align:middle;"
    "margin-right:6px}\n",
    "#filters{margin:8px 0}#filters button{font:inherit;font-size:12.5px;padding:2px 10px;margin-right:4px;"
    "border:1px solid var(--line);background:#fff;border-radius:12px;cursor:pointer}"
    "#filters button[aria-pressed=true]{background:var(--ink);color:#fff}\n",
    "[hidden]{display:none!important}\n",
    "footer{margin-top:40px;color:var(--mute);font-size:12px;border-top:1px solid var(--line);padding-top:8px}\n",
    "@media print{body{max-width:none;padding:0;font-size:10.5pt}.noprint,#filters{display:none!important}"
    "section.test{break-before:page;border-top-width:3px}figure.ladder,.verdict,tr{break-inside:avoid}"
    "a{color:inherit;text-decoration:none}}\n",
    NULL,
};

static const char script[] =
    "(function(){var bar=document.getElementById('filters');if(!bar)return;bar.hidden=false;"
    "var bs=bar.querySelectorAll('button');"
    "function show(f){document.querySelectorAll('[data-verdict]').forEach(function(e){"
    "var v=e.getAttribute('data-verdict');e.hidden=!(f==='all'||v===f||(f==='notpass'&&v!=='pass'));});"
    "bs.forEach(function(b){b.setAttribute('aria-pressed',String(b.getAttribute('data-f')===f));});}"
    "bs.forEach(function(b){b.addEventListener('click',function(){show(b.getAttribute('data-f'));});});"
    "})();";

void assets_style(FILE *o)
{
    for (const char *const *c = css; *c; c++)
        fputs(*c, o);
}

void assets_script(FILE *o)
{
    fputs(script, o);
}

void assets_legend(FILE *o)
{
    fputs("<div class=\"legend\"><span><i style=\"border-color:#1f2328\"></i>sent by mpa-conform</span>"
          "<span><i style=\"border-color:#0969da\"></i>TCP connect, FIN, RST</span>"
          "<span><i style=\"border-color:#1a7f37\"></i>\xE2\x9C\x93 received as expected</span>"
          "<span><i style=\"border-color:#cf222e;border-top-width:3px\"></i>\xE2\x9C\x97 the deviation</span>"
          "<span><i style=\"border-color:#b35900;border-top-style:dashed;border-top-width:3px\"></i>"
          "\xE2\x9A\xA0 error</span>"
          "<span><i style=\"border-color:#afb8c1;border-top-style:dashed\"></i>not run</span></div>\n"
          "<p class=\"mute\">In the ladder diagrams time runs downwards; the margin gives the step and the "
          "time since the test began (for an expectation, when the device's answer came). Hover over an "
          "arrow for the step's full text.</p>\n",
          o);
}
