/* schedule.c: the schedule's canonical text form, "group=ORDER[,span=N],item=ORDER,assign=ASSIGN".
 * The daemon, the wisdom file, reports and the command line all speak this form, so parsing is
 * strict and every error quotes the part it could not read. */
#include "schedule.h"

#include "number.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const gt_schedule gt_schedule_default = {
    .group = {GT_ORDER_LINEAR, 0, 0},
    .item = {GT_ORDER_LINEAR, 0, 0},
    .assign = {GT_ASSIGN_STEALING, 0},
    .span = 1,
};

static const char *const assign_names[] = {
    [GT_ASSIGN_BLOCK] = "block",
    [GT_ASSIGN_CYCLIC] = "cyclic",
    [GT_ASSIGN_DYNAMIC] = "dynamic",
    [GT_ASSIGN_STEALING] = "stealing",
};

_Static_assert(sizeof assign_names / sizeof assign_names[0] == GT_ASSIGN_KINDS, "GT_ASSIGN_KINDS counts them");

bool gt_assign_has_chunk(gt_assign_kind k)
{
    return k == GT_ASSIGN_CYCLIC || k == GT_ASSIGN_DYNAMIC;
}

const char *gt_assign_kind_name(gt_assign_kind kind)
{
    return (unsigned)kind < GT_ASSIGN_KINDS ? assign_names[kind] : NULL;
}

int gt_assign_kind_parse(const char *name, size_t len, gt_assign_kind *out)
{
    for (unsigned k = 0; k < GT_ASSIGN_KINDS; k++) {
        if (strlen(assign_names[k]) == len && memcmp(name, assign_names[k], len) == 0) {
            *out = (gt_assign_kind)k;
            return 0;
        }
    }
    return -EINVAL;
}

int gt_assign_parse(const char *text, size_t len, gt_assign *out, char *err, size_t errlen)
{
    const char *colon = memchr(text, ':', len);
    size_t name_len = colon ? (size_t)(colon - text) : len;
    gt_assign a = {GT_ASSIGN_BLOCK, 0};
    bool known = gt_assign_kind_parse(text, name_len, &a.kind) == 0;
    if (known && gt_assign_has_chunk(a.kind) != !!colon)
        known = false; /* a chunk where none belongs, or none where one must be */
    if (!known) {
        snprintf(err, errlen, "unknown assignment \"%.*s\"; expected block, cyclic:C, dynamic:C or stealing",
                 (int)len, text);
        return -EINVAL;
    }
    if (colon) {
        const char *num = colon + 1;
        if (gt_parse_u32(num, (size_t)(text + len - num), 1, UINT32_MAX, &a.chunk) != 0) {
            snprintf(err, errlen, "assignment \"%.*s\": the chunk must be a whole number from 1 to %u", (int)len,
                     text, UINT32_MAX);
            return -EINVAL;
        }
    }
    *out = a;
    return 0;
}

int gt_assign_format(const gt_assign *a, char *buf, size_t len)
{
    if (gt_assign_has_chunk(a->kind))
        return snprintf(buf, len, "%s:%u", assign_names[a->kind], a->chunk);
    return snprintf(buf, len, "%s", assign_names[a->kind]);
}

enum { KEY_GROUP, KEY_ITEM, KEY_ASSIGN, KEY_SPAN, NKEYS };
static const char *const key_names[NKEYS] = {"group", "item", "assign", "span"};

static int parse_span(const char *text, size_t len, uint32_t *out, char *err, size_t errlen)
{
    if (gt_parse_u32(text, len, 1, GT_SPAN_MAX, out) != 0) {
        snprintf(err, errlen, "span \"%.*s\": expected a whole number of workgroups from 1 to %u", (int)len, text,
                 GT_SPAN_MAX);
        return -EINVAL;
    }
    return 0;
}

static int parse_field(const char *field, size_t len, gt_schedule *s, bool seen[NKEYS], char *err, size_t errlen)
{
    const char *eq = memchr(field, '=', len);
    size_t key_len = eq ? (size_t)(eq - field) : len;
    int key = -1;
    for (int k = 0; k < NKEYS; k++)
        if (strlen(key_names[k]) == key_len && memcmp(field, key_names[k], key_len) == 0)
            key = k;
    if (!eq || key < 0) {
        snprintf(err, errlen, "schedule part \"%.*s\" is not group=ORDER, span=N, item=ORDER or assign=ASSIGN",
                 (int)len, field);
        return -EINVAL;
    }
    if (seen[key]) {
        snprintf(err, errlen, "schedule names \"%s\" twice", key_names[key]);
        return -EINVAL;
    }
    seen[key] = true;
    const char *value = eq + 1;
    size_t value_len = (size_t)(field + len - value);
    switch (key) {
    case KEY_GROUP:
        return gt_order_parse(value, value_len, &s->group, err, errlen);
    case KEY_ITEM:
        return gt_order_parse(value, value_len, &s->item, err, errlen);
    case KEY_SPAN:
        return parse_span(value, value_len, &s->span, err, errlen);
    default:
        return gt_assign_parse(value, value_len, &s->assign, err, errlen);
    }
}

int gt_schedule_parse(const char *text, gt_schedule *out, char *err, size_t errlen)
{
    if (!text || !*text) {
        snprintf(err, errlen, "empty schedule; expected e.g. group=tiled:4x4,item=linear,assign=dynamic:8");
        return -EINVAL;
    }
    gt_schedule s = gt_schedule_default;
    bool seen[NKEYS] = {false};
    const char *field = text;
    for (;;) {
        const char *comma = strchr(field, ',');
        size_t len = comma ? (size_t)(comma - field) : strlen(field);
        int rc = parse_field(field, len, &s, seen, err, errlen);
        if (rc)
            return rc;
        if (!comma)
            break;
        field = comma + 1;
    }
    *out = s;
    return 0;
}

int gt_schedule_format(const gt_schedule *s, char *buf, size_t len)
{
    char group[48], item[48], assign[32];
    gt_order_format(&s->group, group, sizeof group);
    gt_order_format(&s->item, item, sizeof item);
    gt_assign_format(&s->assign, assign, sizeof assign);
    char span[24] = "";
    if (s->span != 1)
        snprintf(span, sizeof span, ",span=%u", s->span);
    return snprintf(buf, len, "group=%s%s,item=%s,assign=%s", group, span, item, assign);
}

bool gt_schedule_equal(const gt_schedule *a, const gt_schedule *b)
{
    return gt_order_equal(&a->group, &b->group) && gt_order_equal(&a->item, &b->item) &&
           a->assign.kind == b->assign.kind && a->assign.chunk == b->assign.chunk && a->span == b->span;
}
