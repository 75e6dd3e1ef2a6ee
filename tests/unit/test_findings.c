/*
 * The one table of findings (include/mpa/findings.def) against the
 * requirement catalogue (../shared/spec/REQUIREMENTS.md) and the ids this
 * project added (docs/requirements-added.md).
 */
#include "mpa/findings.h"
#include "t.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *copy = malloc(n + 1);
    memcpy(copy, buf, n + 1);
    return copy;
}

/* "| MPA-XXX |" rows of a Markdown table, as a NUL-separated list. */
static unsigned ids_in(const char *text, char ids[][48], unsigned max)
{
    unsigned n = 0;
    for (const char *p = text; p && (p = strstr(p, "| MPA-")) != NULL; p++) {
        const char *s = p + 2, *e = s;
        while (*e && *e != ' ' && *e != '|')
            e++;
        if (n < max && (size_t)(e - s) < 48) {
            memcpy(ids[n], s, (size_t)(e - s));
            ids[n][e - s] = 0;
            n++;
        }
    }
    return n;
}

int main(void)
{
    t_name = "findings";
    const char *spec = getenv("MPA_REQUIREMENTS");
    if (!spec)
        spec = "../shared/spec/REQUIREMENTS.md";
    char *cat = slurp(spec);
    T_CHECK(cat != NULL, "cannot read the catalogue %s (set MPA_REQUIREMENTS)", spec);
    char *added = slurp("docs/requirements-added.md");
    T_CHECK(added != NULL, "cannot read docs/requirements-added.md");
    static char cat_ids[200][48], add_ids[100][48];
    unsigned ncat = ids_in(cat, cat_ids, 200), nadd = ids_in(added, add_ids, 100);
    T_CHECK(ncat >= 58, "only %u ids found in %s", ncat, spec);

    /* Every catalogue id has a row; nothing is renamed away. */
    for (unsigned i = 0; i < ncat; i++)
        T_CHECK(mpa_rule_find(cat_ids[i]) != MPA_F__COUNT, "catalogue id %s has no row in findings.def",
                cat_ids[i]);
    /* Every row is in the catalogue or documented as added. */
    for (unsigned id = 0; id < MPA_F__COUNT; id++) {
        const mpa_rule *r = mpa_rule_get((mpa_finding_id)id);
        int in_cat = 0, in_add = 0;
        for (unsigned i = 0; i < ncat; i++)
            in_cat |= strcmp(cat_ids[i], r->id) == 0;
        for (unsigned i = 0; i < nadd; i++)
            in_add |= strcmp(add_ids[i], r->id) == 0;
        T_CHECK(in_cat || in_add, "%s is in neither the catalogue nor docs/requirements-added.md", r->id);
        T_CHECK(!(in_cat && in_add), "%s is in the catalogue: drop it from requirements-added.md", r->id);
        /* MUST -> error, SHOULD -> warning, NOTE -> note. */
        mpa_severity want = strcmp(r->level, "MUST") == 0     ? MPA_SEV_ERROR
                            : strcmp(r->level, "SHOULD") == 0 ? MPA_SEV_WARNING
                                                              : MPA_SEV_NOTE;
        T_EQ(r->severity, want);
        T_EQ(mpa_rule_find(r->id), id);
        T_CHECK(r->text && r->text[0] && r->clause && r->clause[0], "%s lacks text", r->id);
        /* The catalogue's level agrees with ours. */
        if (in_cat) {
            char row[128];
            snprintf(row, sizeof row, "| %s | %s |", r->id, strcmp(r->level, "NOTE") == 0 ? "note" : r->level);
            T_CHECK(strstr(cat, row) != NULL, "%s: level %s differs from the catalogue", r->id, r->level);
        }
    }
    T_CHECK(mpa_rule_get(MPA_F__COUNT) == NULL, "out of range");
    T_EQ(mpa_rule_find("MPA-NO-SUCH"), MPA_F__COUNT);
    T_STREQ(mpa_severity_str(MPA_SEV_WARNING), "warning");
    free(cat);
    free(added);
    return t_done();
}
