/* history.c - see history.h. */
#include "harness/gate/history.h"

#include <math.h>
#include <string.h>

void ug_hist_stats_of(const double *hist, size_t k, ug_hist_stats *st)
{
    memset(st, 0, sizeof *st);
    st->k = k;
    for (size_t i = 0; i < k; i++) st->mean += log(fmax(hist[i], UG_HIST_FLOOR));
    if (k) st->mean /= (double)k;
    double ss = 0;
    for (size_t i = 0; i < k; i++) {
        double d = log(fmax(hist[i], UG_HIST_FLOOR)) - st->mean;
        ss += d * d;
    }
    st->sd = k > 1 ? sqrt(ss / (double)(k - 1)) : 0;
    st->sd_eff = fmax(st->sd, UG_HIST_SD_MIN);
}

double ug_hist_t(const ug_hist_stats *st, double ulp_mean)
{
    if (isnan(ulp_mean)) return INFINITY; /* NaN is worse than any number */
    double y = log(fmax(ulp_mean, UG_HIST_FLOOR));
    return (y - st->mean) / (st->sd_eff * sqrt(1.0 + 1.0 / (double)(st->k ? st->k : 1)));
}

/* The continued fraction of the incomplete beta function (modified Lentz). */
static double ug_betacf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m, aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
        d = 1 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
        d = 1 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15) break;
    }
    return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double ug_ibeta(double a, double b, double x)
{
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2)) return exp(lbt) * ug_betacf(a, b, x) / a;
    return 1 - exp(lbt) * ug_betacf(b, a, 1 - x) / b;
}

double ug_t_upper(double t, double nu)
{
    if (isnan(t)) return 0;
    if (isinf(t)) return t > 0 ? 0 : 1;
    double tail = 0.5 * ug_ibeta(nu / 2, 0.5, nu / (nu + t * t));
    return t >= 0 ? tail : 1 - tail;
}

double ug_normal_upper(double z) { return 0.5 * erfc(z / sqrt(2.0)); }

double ug_t_unit(double t, double nu) { return nu > 2 ? t * sqrt((nu - 2) / nu) : t; }

size_t ug_hist_push(double *hist, size_t k, double v)
{
    if (k == UG_HIST_MAX) {
        memmove(hist, hist + 1, (UG_HIST_MAX - 1) * sizeof *hist);
        k--;
    }
    hist[k] = v;
    return k + 1;
}
