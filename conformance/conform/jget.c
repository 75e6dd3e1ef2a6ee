/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Typed reading of an untrusted cJSON document (jget.h). */
#include "jget.h"

#include <string.h>

const cJSON *jget(const cJSON *o, const char *k)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

const char *jget_str(const cJSON *o, const char *k)
{
    const cJSON *v = jget(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *jget_str_or(const cJSON *o, const char *k, const char *dflt)
{
    const char *s = jget_str(o, k);
    return s ? s : dflt;
}

const char *jget_text(const cJSON *o, const char *k)
{
    const char *s = jget_str(o, k);
    return s && *s ? s : NULL;
}

int jget_num_ok(const cJSON *v, double *d)
{
    if (!cJSON_IsNumber(v))
        return 0;
    double x = v->valuedouble;
    if (!(x == x) || x > 1e15 || x < -1e15)
        return 0;
    *d = x;
    return 1;
}

int jget_num(const cJSON *o, const char *k, double *d)
{
    return jget_num_ok(jget(o, k), d);
}

double jget_num_or(const cJSON *o, const char *k, double dflt)
{
    double d;
    return jget_num(o, k, &d) ? d : dflt;
}

int jget_int(const cJSON *o, const char *k, int dflt)
{
    double d = jget_num_or(o, k, dflt);
    return d > 1e9 ? 1000000000 : d < -1e9 ? -1000000000 : (int)d;
}

const char *jget_type(const cJSON *v)
{
    static const struct {
        cJSON_bool (*is)(const cJSON *);
        const char *words;
    } types[] = {
        {cJSON_IsString, "a string"}, {cJSON_IsNumber, "a number"}, {cJSON_IsBool, "a boolean"},
        {cJSON_IsNull, "null"},       {cJSON_IsArray, "an array"},  {cJSON_IsObject, "an object"},
    };
    if (!v)
        return "missing";
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].is(v))
            return types[i].words;
    return "invalid";
}

int jget_one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return 1;
    return 0;
}
