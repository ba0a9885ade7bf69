/* test_stats.c: the tuner's statistics (tuner/stats.c).
 * The summaries leave out NaNs and infinities and take the usual median; the rank test's exact
 * p-values match hand-counted ones and a count over every order of small samples, its direction
 * and margin mean what the header says, and its normal approximation (ties, larger samples)
 * stays close to the exact value. The paired signed-rank test's exact p-values match hand counts
 * and a count over every sign pattern, pairs cancel the launches' own spread, and ties, zero
 * differences and bad values are handled as its header says. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "tuner/stats.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void assert_near(double got, double want, double tolerance)
{
    if (!(fabs(got - want) <= tolerance))
        fail_msg("got %.17g, expected %.17g within %g", got, want, tolerance);
}

/* Values for an order of a's and b's read from the lowest up ("aabab": a gets 1, 2 and 4,
 * b gets 3 and 5), so a test can name the order instead of listing numbers. */
typedef struct sides {
    double a[64], b[64];
    size_t na, nb;
} sides;

static sides from_order(const char *order)
{
    sides s = {.na = 0};
    for (size_t i = 0; order[i]; i++) {
        assert_true(s.na < ARRAY_LEN(s.a) && s.nb < ARRAY_LEN(s.b));
        if (order[i] == 'a')
            s.a[s.na++] = (double)(i + 1);
        else
            s.b[s.nb++] = (double)(i + 1);
    }
    return s;
}

static gt_rank_test rank_order(const char *order)
{
    sides s = from_order(order);
    gt_rank_test t;
    gt_rank_test_less(s.a, s.na, s.b, s.nb, 0, &t);
    return t;
}

static double binomial(unsigned n, unsigned k)
{
    double c = 1;
    for (unsigned i = 1; i <= k; i++)
        c = c * (n - k + i) / i;
    return c;
}

/* ---- summaries ------------------------------------------------------------------------ */

static void test_stats_leave_out_nans_and_infinities(void **state)
{
    (void)state;
    const double v[] = {5, 1, NAN, 3, INFINITY, 100, -INFINITY};
    gt_stats st;
    gt_stats_compute(v, ARRAY_LEN(v), &st);
    assert_int_equal(st.n, 4);
    assert_true(st.median == 4); /* the mean of 3 and 5 */
    assert_true(st.min == 1 && st.max == 100);
}

static void test_stats_median_of_an_odd_count_is_the_middle_value(void **state)
{
    (void)state;
    double v[] = {9, 2, 7, 1, 8};
    assert_true(gt_stats_median(v, ARRAY_LEN(v)) == 7);
    const double before[] = {9, 2, 7, 1, 8};
    assert_memory_equal(v, before, sizeof v);
}

static void test_stats_of_nothing_are_nan(void **state)
{
    (void)state;
    const double nans[] = {NAN, INFINITY, NAN};
    gt_stats st;
    gt_stats_compute(nans, 0, &st);
    assert_int_equal(st.n, 0);
    assert_true(isnan(st.median) && isnan(st.min) && isnan(st.max));
    gt_stats_compute(nans, ARRAY_LEN(nans), &st);
    assert_int_equal(st.n, 0);
    assert_true(isnan(st.median));
    assert_true(isnan(gt_stats_median(nans, ARRAY_LEN(nans))));
}

/* Nearest rank over the finite values: of k sorted values, element round(p (k - 1)). */
static void test_stats_quantile_is_the_nearest_rank(void **state)
{
    (void)state;
    double v[] = {40, NAN, 10, 30, INFINITY, 20}; /* finite and sorted: 10 20 30 40 */
    assert_true(gt_stats_quantile(v, ARRAY_LEN(v), 0) == 10);
    assert_true(gt_stats_quantile(v, ARRAY_LEN(v), 0.1) == 10); /* 0.3 rounds to 0 */
    assert_true(gt_stats_quantile(v, ARRAY_LEN(v), 0.5) == 30); /* 1.5 rounds to 2 */
    assert_true(gt_stats_quantile(v, ARRAY_LEN(v), 0.9) == 40); /* 2.7 rounds to 3 */
    assert_true(gt_stats_quantile(v, ARRAY_LEN(v), 1) == 40);
    const double before[] = {40, NAN, 10, 30, INFINITY, 20};
    assert_true(v[0] == before[0] && isnan(v[1]) && v[2] == before[2] && v[5] == before[5]);
    assert_true(isnan(gt_stats_quantile(v, ARRAY_LEN(v), 1.5)));
    assert_true(isnan(gt_stats_quantile(v, ARRAY_LEN(v), -0.1)));
    const double nans[] = {NAN, INFINITY};
    assert_true(isnan(gt_stats_quantile(nans, ARRAY_LEN(nans), 0.5)));
    assert_true(isnan(gt_stats_quantile(nans, 0, 0.5)));
}

/* ---- the rank test: exact p-values ------------------------------------------------------ */

static void test_rank_3_vs_3_separated_is_one_in_20(void **state)
{
    (void)state;
    /* Of the C(6, 3) = 20 orders, only "aaabbb" has U = 9. */
    gt_rank_test t = rank_order("aaabbb");
    assert_int_equal(t.na, 3);
    assert_int_equal(t.nb, 3);
    assert_true(t.u == 9);
    assert_true(t.exact);
    assert_near(t.p, 1.0 / 20, 1e-15);
    assert_false(t.p < GT_RANK_TEST_ALPHA); /* three samples a side cannot show anything */
}

static void test_rank_4_vs_4_separated_is_one_in_70(void **state)
{
    (void)state;
    gt_rank_test t = rank_order("aaaabbbb");
    assert_true(t.u == 16);
    assert_true(t.exact);
    assert_near(t.p, 1.0 / 70, 1e-15);
    assert_true(t.p < GT_RANK_TEST_ALPHA);
}

static void test_rank_mixed_orders_match_hand_counts(void **state)
{
    (void)state;
    /* a = {1, 2, 4}, b = {3, 5, 6}: U = 3 + 3 + 2 = 8 of 9. Orders with U >= 8 are those
     * with at most one (a, b) pair out of place: aaabbb and aababb, so p = 2/20. */
    gt_rank_test t = rank_order("aababb");
    assert_true(t.u == 8);
    assert_near(t.p, 2.0 / 20, 1e-15);

    /* a = {1, 2, 4, 5}, b = {3, 6, 7, 8}: U = 4 + 4 + 3 + 3 = 14 of 16. U >= 14 leaves at
     * most two pairs out of place, as partitions of 0, 1 or 2 into at most four parts of at
     * most four: {}, {1}, {2}, {1, 1}, so p = 4/70 = 0.0571 (the textbook table's 0.057 for
     * U' = 2), just short of 0.05. */
    t = rank_order("aabaabbb");
    assert_true(t.u == 14);
    assert_near(t.p, 4.0 / 70, 1e-15);
    assert_false(t.p < GT_RANK_TEST_ALPHA);

    /* Unequal sides: 2 a's below 5 b's is one order of C(7, 2) = 21. */
    t = rank_order("aabbbbb");
    assert_true(t.u == 10);
    assert_near(t.p, 1.0 / 21, 1e-15);
}

/* Every order of m a's and n b's for m, n up to 6: the p the test gives is the share of orders
 * whose U, counted pair by pair, is at least as large. */
static void test_rank_exact_p_is_the_share_of_orders_with_u_as_large(void **state)
{
    (void)state;
    for (unsigned m = 1; m <= 6; m++)
        for (unsigned n = 1; n <= 6; n++) {
            unsigned len = m + n;
            double count[37] = {0}, total = 0;
            for (unsigned mask = 0; mask < 1u << len; mask++) {
                if ((unsigned)__builtin_popcount(mask) != m)
                    continue;
                unsigned u = 0, b_above = 0;
                for (unsigned i = len; i-- > 0;) {
                    if (mask >> i & 1)
                        u += b_above;
                    else
                        b_above++;
                }
                count[u]++;
                total++;
            }
            assert_true(total == binomial(len, m));
            for (unsigned mask = 0; mask < 1u << len; mask++) {
                if ((unsigned)__builtin_popcount(mask) != m)
                    continue;
                char order[16] = "";
                for (unsigned i = 0; i < len; i++)
                    order[i] = (mask >> i & 1) ? 'a' : 'b';
                gt_rank_test t = rank_order(order);
                double tail = 0;
                for (unsigned k = (unsigned)t.u; k <= m * n; k++)
                    tail += count[k];
                assert_true(t.exact);
                if (fabs(t.p - tail / total) > 1e-12)
                    fail_msg("%s: p %.17g, expected %g/%g", order, t.p, tail, total);
            }
        }
}

static void test_rank_exact_up_to_64_values(void **state)
{
    (void)state;
    char order[66] = "";
    memset(order, 'a', 32);
    memset(order + 32, 'b', 32);
    gt_rank_test t = rank_order(order);
    assert_true(t.exact);
    assert_true(t.u == 32 * 32);
    assert_near(t.p / (1 / binomial(64, 32)), 1, 1e-9); /* C(64, 32) = 1.8e18 */

    order[64] = 'b';
    t = rank_order(order);
    assert_false(t.exact);
    assert_true(t.p > 0 && t.p < 1e-10);
}

/* ---- direction and margin --------------------------------------------------------------- */

static gt_rank_test rank_swapped(const char *order)
{
    sides s = from_order(order);
    gt_rank_test t;
    gt_rank_test_less(s.b, s.nb, s.a, s.na, 0, &t);
    return t;
}

static void test_rank_swapped_sides_take_the_other_tail(void **state)
{
    (void)state;
    gt_rank_test t = rank_swapped("aaabbb");
    assert_true(t.u == 0);
    assert_near(t.p, 1, 1e-15);

    /* P(U >= 8) + P(U <= 8) = 1 + P(U = 8) = 1 + 1/20. */
    gt_rank_test there = rank_order("aababb"), back = rank_swapped("aababb");
    assert_true(back.u == 1);
    assert_near(there.p + back.p, 1 + 1.0 / 20, 1e-15);
}

/* Incumbent costs close together, as on a quiet machine. */
static const double incumbent[] = {100.0, 100.2, 100.1, 100.4, 100.3, 100.5};
/* And spread by a few percent, as on a noisy one. */
static const double incumbent_noisy[] = {100, 104, 97, 102, 99, 101, 103, 98, 96, 105};

static gt_rank_test rank_scaled(const double *b, size_t n, double factor, double margin)
{
    double a[16];
    assert_true(n <= ARRAY_LEN(a));
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] * factor;
    gt_rank_test t;
    gt_rank_test_less(a, n, b, n, margin, &t);
    return t;
}

static void test_rank_two_percent_is_not_a_three_percent_gain(void **state)
{
    (void)state;
    gt_rank_test t = rank_scaled(incumbent, ARRAY_LEN(incumbent), 0.98, 0.03);
    assert_true(t.u == 0); /* every 0.98 b above every b / 1.03 */
    assert_true(t.p > 0.5);
    t = rank_scaled(incumbent_noisy, ARRAY_LEN(incumbent_noisy), 0.98, 0.03);
    assert_true(t.p > 0.5);

    /* The same challenger is shown faster when any gain will do. */
    t = rank_scaled(incumbent, ARRAY_LEN(incumbent), 0.98, 0);
    assert_near(t.p, 1 / binomial(12, 6), 1e-15);
}

static void test_rank_ten_percent_is_a_three_percent_gain(void **state)
{
    (void)state;
    gt_rank_test t = rank_scaled(incumbent, ARRAY_LEN(incumbent), 0.9, 0.03);
    assert_near(t.p, 1 / binomial(12, 6), 1e-15);
    assert_true(t.p < GT_RANK_TEST_ALPHA);
    t = rank_scaled(incumbent_noisy, ARRAY_LEN(incumbent_noisy), 0.9, 0.03);
    assert_true(t.p < GT_RANK_TEST_ALPHA);
    /* With three samples a side even a clear gain is not enough. */
    t = rank_scaled(incumbent, 3, 0.9, 0.03);
    assert_near(t.p, 1.0 / 20, 1e-15);
    assert_false(t.p < GT_RANK_TEST_ALPHA);
}

static void test_rank_margin_must_be_a_number_above_minus_one(void **state)
{
    (void)state;
    static const double bad[] = {NAN, INFINITY, -INFINITY, -1, -2};
    sides s = from_order("aaaaabbbbb");
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        gt_rank_test t;
        gt_rank_test_less(s.a, s.na, s.b, s.nb, bad[i], &t);
        assert_int_equal(t.na, 5);
        assert_true(t.p == 1);
    }
}

/* ---- ties and the normal approximation ------------------------------------------------- */

static void test_rank_all_equal_shows_nothing(void **state)
{
    (void)state;
    const double a[] = {5, 5, 5, 5}, b[] = {5, 5, 5};
    gt_rank_test t;
    gt_rank_test_less(a, ARRAY_LEN(a), b, ARRAY_LEN(b), 0, &t);
    assert_false(t.exact);
    assert_true(t.u == 6); /* 12 pairs, each half */
    assert_true(t.p >= 0.5);
}

static void test_rank_ties_count_half_and_use_the_approximation(void **state)
{
    (void)state;
    /* U = 4 (a = 1) + 2 * 3.5 (a = 2: above 3, 4, 5, tied with one 2) + 2.5 (a = 3) = 13.5.
     * Ties: {2, 2, 2} and {3, 3}, so sum(t^3 - t) = 24 + 6 = 30, var U = 16/12 * (9 - 30/56)
     * = 11.2857, z = (13.5 - 8 - 0.5) / sqrt(11.2857) = 1.4884, p = 1 - Phi(z) = 0.06833. */
    const double a[] = {1, 2, 2, 3}, b[] = {2, 3, 4, 5};
    gt_rank_test t;
    gt_rank_test_less(a, ARRAY_LEN(a), b, ARRAY_LEN(b), 0, &t);
    assert_false(t.exact);
    assert_true(t.u == 13.5);
    assert_near(t.p, 0.0683291, 1e-6);

    gt_rank_test back;
    gt_rank_test_less(b, ARRAY_LEN(b), a, ARRAY_LEN(a), 0, &back);
    assert_true(back.u == 16 - 13.5);
    assert_true(back.p > 0.5 && back.p < 1);
}

/* 10 against 10: the exact p of each order, and the approximation's p for the same order with
 * its first two adjacent a's made equal, a tie that leaves U as it was but takes the exact
 * path away. */
static void test_rank_approximation_is_close_to_exact_at_10_vs_10(void **state)
{
    (void)state;
    static const struct {
        const char *order;
        double u;
    } cases[] = {
        {"aaabababaabbabbabbbb", 78}, /* exact p 0.0177 */
        {"aabaababbaababbabbbb", 75}, /* 0.0315 */
        {"aababaabbabababbabbb", 71}, /* 0.0615 */
        {"abaabababaabbabbabab", 62}, /* 0.197 */
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        sides s = from_order(cases[i].order);
        gt_rank_test exact, approx;
        gt_rank_test_less(s.a, s.na, s.b, s.nb, 0, &exact);
        const char *pair = strstr(cases[i].order, "aa");
        assert_non_null(pair);
        size_t k = 0; /* the first a of the pair is a[k] */
        for (const char *c = cases[i].order; c < pair; c++)
            k += *c == 'a';
        s.a[k + 1] = s.a[k];
        gt_rank_test_less(s.a, s.na, s.b, s.nb, 0, &approx);
        assert_true(exact.exact);
        assert_false(approx.exact);
        assert_true(exact.u == cases[i].u && approx.u == cases[i].u);
        if (!(fabs(approx.p - exact.p) <= 0.1 * exact.p))
            fail_msg("%s: approximate p %.6f, exact %.6f", cases[i].order, approx.p, exact.p);
    }
}

/* ---- what is left out ------------------------------------------------------------------- */

static void test_rank_leaves_out_nans_and_infinities(void **state)
{
    (void)state;
    const double a[] = {NAN, 1, 2, INFINITY, 3}, b[] = {4, -INFINITY, 5, NAN, 6};
    gt_rank_test t;
    gt_rank_test_less(a, ARRAY_LEN(a), b, ARRAY_LEN(b), 0, &t);
    assert_int_equal(t.na, 3);
    assert_int_equal(t.nb, 3);
    assert_true(t.exact);
    assert_near(t.p, 1.0 / 20, 1e-15);
}

static void test_rank_with_an_empty_side_shows_nothing(void **state)
{
    (void)state;
    const double some[] = {1, 2, 3}, nans[] = {NAN, NAN};
    gt_rank_test t;
    gt_rank_test_less(some, ARRAY_LEN(some), some, 0, 0.03, &t);
    assert_int_equal(t.na, 3);
    assert_int_equal(t.nb, 0);
    assert_true(t.p == 1 && t.u == 0);
    gt_rank_test_less(NULL, 0, some, ARRAY_LEN(some), 0.03, &t);
    assert_int_equal(t.na, 0);
    assert_int_equal(t.nb, 3);
    assert_true(t.p == 1);
    gt_rank_test_less(nans, ARRAY_LEN(nans), some, ARRAY_LEN(some), 0.03, &t);
    assert_int_equal(t.na, 0);
    assert_true(t.p == 1);
    gt_rank_test_less(some, ARRAY_LEN(some), nans, ARRAY_LEN(nans), 0.03, &t);
    assert_int_equal(t.nb, 0);
    assert_true(t.p == 1);
}

/* ---- the signed-rank test -------------------------------------------------------------- */

/* Pairs whose log ratios ln(a / b) are -m for the magnitudes m listed, with the sign of
 * `a_won` ('a': a smaller, 'b': b smaller), so that a test names ranks and signs only. */
static gt_signed_rank_test signed_order(const char *signs, double margin)
{
    double a[64], b[64];
    size_t n = strlen(signs);
    assert_true(n <= ARRAY_LEN(a));
    for (size_t i = 0; i < n; i++) {
        double m = 0.01 * (double)(i + 1); /* rank i + 1 */
        b[i] = 2.0;
        a[i] = signs[i] == 'a' ? 2.0 * exp(-m) : 2.0 * exp(m);
    }
    gt_signed_rank_test t;
    gt_signed_rank_test_less(a, b, n, margin, &t);
    return t;
}

static void test_signed_rank_needs_five_pairs_for_alpha(void **state)
{
    (void)state;
    gt_signed_rank_test t = signed_order("aaaa", 0);
    assert_true(t.exact);
    assert_int_equal(t.n, 4);
    assert_true(t.w == 10);
    assert_near(t.p, 1.0 / 16, 1e-15);
    assert_false(t.p < GT_RANK_TEST_ALPHA);
    t = signed_order("aaaaa", 0);
    assert_near(t.p, 1.0 / 32, 1e-15);
    assert_true(t.p < GT_RANK_TEST_ALPHA);
}

static void test_signed_rank_matches_hand_counts(void **state)
{
    (void)state;
    /* b won the pair of rank 2 only: W = 1 + 3 + 4 + 5 = 13; the subsets of {1..5} summing to
       13 or more are the complements of those summing to 2 or less: {}, {1}, {2}. */
    gt_signed_rank_test t = signed_order("abaaa", 0);
    assert_true(t.w == 13);
    assert_near(t.p, 3.0 / 32, 1e-15);
    /* b won rank 5: W = 10; complements summing to 5 or less: {}, 1, 2, 3, 4, 5, 1+2, 1+3,
       1+4, 2+3: 10 of 32. */
    t = signed_order("aaaab", 0);
    assert_true(t.w == 10);
    assert_near(t.p, 10.0 / 32, 1e-15);
    /* b won every pair: nothing shown. */
    t = signed_order("bbbbb", 0);
    assert_true(t.w == 0);
    assert_true(t.p == 1);
}

/* The exact p is the share of the 2^n sign assignments with a W as large, counted here by
   brute force for every sign pattern of 8 pairs. */
static void test_signed_rank_exact_p_counts_every_sign_assignment(void **state)
{
    (void)state;
    enum { N = 8 };
    for (unsigned pattern = 0; pattern < (1u << N); pattern++) {
        char signs[N + 1] = {0};
        unsigned w = 0;
        for (unsigned i = 0; i < N; i++) {
            signs[i] = pattern & (1u << i) ? 'a' : 'b';
            w += pattern & (1u << i) ? i + 1 : 0;
        }
        unsigned as_large = 0;
        for (unsigned other = 0; other < (1u << N); other++) {
            unsigned v = 0;
            for (unsigned i = 0; i < N; i++)
                v += other & (1u << i) ? i + 1 : 0;
            as_large += v >= w;
        }
        gt_signed_rank_test t = signed_order(signs, 0);
        assert_true(t.w == w);
        assert_near(t.p, as_large / 256.0, 1e-15);
    }
}

static void test_signed_rank_margin_means_a_gain_of_that_much(void **state)
{
    (void)state;
    /* a is 2% below b in every pair, the launches' own speeds varying by 30% */
    const double b[] = {1.0, 1.3, 0.9, 1.1, 1.2, 1.0}, two[] = {0.98, 1.274, 0.882, 1.078, 1.176, 0.98};
    const double ten[] = {0.9, 1.17, 0.81, 0.99, 1.08, 0.9};
    gt_signed_rank_test t;
    gt_signed_rank_test_less(two, b, ARRAY_LEN(b), 0.03, &t);
    assert_true(t.p > 0.5);
    gt_signed_rank_test_less(two, b, ARRAY_LEN(b), 0, &t);
    assert_near(t.p, 1.0 / 64, 1e-15);
    gt_signed_rank_test_less(ten, b, ARRAY_LEN(b), 0.03, &t);
    assert_near(t.p, 1.0 / 64, 1e-15);
    /* unpaired, the same costs show nothing: the launches' spread hides the gain */
    gt_rank_test u;
    gt_rank_test_less(ten, ARRAY_LEN(ten), b, ARRAY_LEN(b), 0.03, &u);
    assert_false(u.p < GT_RANK_TEST_ALPHA);
}

static void test_signed_rank_ties_zeros_and_bad_values(void **state)
{
    (void)state;
    /* three equal magnitudes share rank 2: W = 6 whichever way, and every assignment of the
       winning side gives 0, 2, 4 or 6 of them; p(W >= 6) = 1/8, exact despite the ties */
    const double a[] = {0.9, 0.9, 0.9}, b[] = {1.0, 1.0, 1.0};
    gt_signed_rank_test t;
    gt_signed_rank_test_less(a, b, 3, 0, &t);
    assert_true(t.exact);
    assert_true(t.w == 6);
    assert_near(t.p, 1.0 / 8, 1e-15);
    /* equal pairs, NaNs, infinities, zero and negative costs are left out */
    const double a2[] = {1.0, NAN, INFINITY, 0.0, -1.0, 0.5}, b2[] = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
    gt_signed_rank_test_less(a2, b2, ARRAY_LEN(a2), 0, &t);
    assert_int_equal(t.n, 1);
    assert_near(t.p, 0.5, 1e-15);
    gt_signed_rank_test_less(a2, b2, 1, 0, &t);
    assert_int_equal(t.n, 0);
    assert_true(t.p == 1);
    static const double bad[] = {NAN, INFINITY, -1, -2};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        gt_signed_rank_test_less(a, b, 3, bad[i], &t);
        assert_true(t.p == 1);
    }
}

/* Beyond the exact limit the normal approximation takes over, close to the exact value at the
   limit: 63 pairs, a winning the upper ranks only. */
static void test_signed_rank_approximation_beyond_the_exact_limit(void **state)
{
    (void)state;
    char signs[GT_SIGNED_RANK_EXACT_MAX + 2] = {0};
    for (size_t i = 0; i <= GT_SIGNED_RANK_EXACT_MAX; i++)
        signs[i] = i % 3 ? 'a' : 'b';
    gt_signed_rank_test approx = signed_order(signs, 0);
    assert_false(approx.exact);
    signs[GT_SIGNED_RANK_EXACT_MAX] = 0;
    gt_signed_rank_test exact = signed_order(signs, 0);
    assert_true(exact.exact);
    assert_true(approx.p > 0 && approx.p < GT_RANK_TEST_ALPHA);
    assert_true(exact.p > 0 && exact.p < GT_RANK_TEST_ALPHA);
    assert_near(approx.p, exact.p, 0.5 * exact.p + 1e-4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_leave_out_nans_and_infinities),
        cmocka_unit_test(test_stats_median_of_an_odd_count_is_the_middle_value),
        cmocka_unit_test(test_stats_of_nothing_are_nan),
        cmocka_unit_test(test_stats_quantile_is_the_nearest_rank),
        cmocka_unit_test(test_rank_3_vs_3_separated_is_one_in_20),
        cmocka_unit_test(test_rank_4_vs_4_separated_is_one_in_70),
        cmocka_unit_test(test_rank_mixed_orders_match_hand_counts),
        cmocka_unit_test(test_rank_exact_p_is_the_share_of_orders_with_u_as_large),
        cmocka_unit_test(test_rank_exact_up_to_64_values),
        cmocka_unit_test(test_rank_swapped_sides_take_the_other_tail),
        cmocka_unit_test(test_rank_two_percent_is_not_a_three_percent_gain),
        cmocka_unit_test(test_rank_ten_percent_is_a_three_percent_gain),
        cmocka_unit_test(test_rank_margin_must_be_a_number_above_minus_one),
        cmocka_unit_test(test_rank_all_equal_shows_nothing),
        cmocka_unit_test(test_rank_ties_count_half_and_use_the_approximation),
        cmocka_unit_test(test_rank_approximation_is_close_to_exact_at_10_vs_10),
        cmocka_unit_test(test_rank_leaves_out_nans_and_infinities),
        cmocka_unit_test(test_rank_with_an_empty_side_shows_nothing),
        cmocka_unit_test(test_signed_rank_needs_five_pairs_for_alpha),
        cmocka_unit_test(test_signed_rank_matches_hand_counts),
        cmocka_unit_test(test_signed_rank_exact_p_counts_every_sign_assignment),
        cmocka_unit_test(test_signed_rank_margin_means_a_gain_of_that_much),
        cmocka_unit_test(test_signed_rank_ties_zeros_and_bad_values),
        cmocka_unit_test(test_signed_rank_approximation_beyond_the_exact_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
