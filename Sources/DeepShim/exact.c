// The exact count: a pixel iterated on its own, every step in MPFR. The oracle of the tests, and the
// count of the pixels whose Double steps cannot be trusted (rows.c).
#include "internal.h"

#include <stdlib.h>

/// The escape count of c = cr + i·ci, every step in MPFR with `bits` of precision (bailout |z|² > 4),
/// and z where it escaped (as Doubles; 0 for a point that reaches `limit`): the oracle's loop and the
/// exact count's.
static uint64_t mpfr_escape_count(
    const mpfr_t cr, const mpfr_t ci, long bits, uint64_t limit, double *escaped_re, double *escaped_im) {
    mpfr_t t, zr, zi, x2, y2;
    mpfr_inits2(bits, t, zr, zi, x2, y2, (mpfr_ptr)0);
    mpfr_set_zero(zr, 1);
    mpfr_set_zero(zi, 1);
    uint64_t count = limit;
    *escaped_re = 0;
    *escaped_im = 0;
    for (uint64_t n = 0; n < limit; n++) {
        mpfr_sqr(x2, zr, MPFR_RNDN);
        mpfr_sqr(y2, zi, MPFR_RNDN);
        mpfr_add(t, x2, y2, MPFR_RNDN);
        if (mpfr_cmp_ui(t, 4) > 0) {
            count = n;
            *escaped_re = mpfr_get_d(zr, MPFR_RNDN);
            *escaped_im = mpfr_get_d(zi, MPFR_RNDN);
            break;
        }
        mpfr_mul(t, zr, zi, MPFR_RNDN);
        mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
        mpfr_add(zi, t, ci, MPFR_RNDN);
        mpfr_sub(zr, x2, y2, MPFR_RNDN);
        mpfr_add(zr, zr, cr, MPFR_RNDN);
    }
    mpfr_clears(t, zr, zi, x2, y2, (mpfr_ptr)0);
    return count;
}

uint64_t deep_oracle_pixel(
    const char *re, const char *im, const char *zoom, long width, long height, long x, long y, long bits,
    uint64_t limit) {
    mpfr_t cr, ci, s, t;
    mpfr_inits2(bits, cr, ci, s, t, (mpfr_ptr)0);
    mpfr_set_str(s, zoom, 10, MPFR_RNDN);
    mpfr_mul_si(s, s, width < height ? width : height, MPFR_RNDN);
    mpfr_ui_div(s, 3, s, MPFR_RNDN);
    // (x + 0.5 − W/2)·s = (2x + 1 − W)·s / 2, exactly as the convention reads.
    mpfr_set_str(cr, re, 10, MPFR_RNDN);
    mpfr_mul_si(t, s, 2 * x + 1 - width, MPFR_RNDN);
    mpfr_div_2ui(t, t, 1, MPFR_RNDN);
    mpfr_add(cr, cr, t, MPFR_RNDN);
    mpfr_set_str(ci, im, 10, MPFR_RNDN);
    mpfr_mul_si(t, s, 2 * y + 1 - height, MPFR_RNDN);
    mpfr_div_2ui(t, t, 1, MPFR_RNDN);
    mpfr_sub(ci, ci, t, MPFR_RNDN);
    double escaped_re, escaped_im;
    uint64_t count = mpfr_escape_count(cr, ci, bits, limit, &escaped_re, &escaped_im);
    mpfr_clears(cr, ci, s, t, (mpfr_ptr)0);
    return count;
}

struct deep_exact_view *deep_exact_view_new(
    const char *re, const char *im, const char *zoom, long bits, long min_side) {
    struct deep_exact_view *view = malloc(sizeof *view);
    if (!view) return NULL;
    view->bits = bits + 64;
    view->min_side = min_side;
    mpfr_inits2(view->bits, view->re, view->im, view->zoom, (mpfr_ptr)0);
    if (mpfr_set_str(view->re, re, 10, MPFR_RNDN) != 0 || mpfr_set_str(view->im, im, 10, MPFR_RNDN) != 0
        || mpfr_set_str(view->zoom, zoom, 10, MPFR_RNDN) != 0) {
        deep_exact_view_free(view);
        return NULL;
    }
    return view;
}

void deep_exact_view_free(struct deep_exact_view *view) {
    if (!view) return;
    mpfr_clears(view->re, view->im, view->zoom, (mpfr_ptr)0);
    free(view);
}

/// offset / zoom, with the offset as the grid means it: the Double offset is k·u rounded, u =
/// 3 / (2·min_side) and k an odd or even integer, so k is recovered and the point taken exactly
/// (the pixels the MPFR loop of the tests computes). An offset off that lattice is taken as it is.
static void exact_offset(const struct deep_exact_view *view, double offset, mpfr_t result) {
    double unit = 3.0 / (double)view->min_side / 2;
    double steps = round(offset / unit);
    if (view->min_side > 0 && fabs(steps) < 0x1p52 && fabs(offset - steps * unit) <= 0x1p-48 * fabs(offset)) {
        mpfr_set_d(result, steps * 3, MPFR_RNDN);
        mpfr_div_si(result, result, 2 * view->min_side, MPFR_RNDN);
    } else {
        mpfr_set_d(result, offset, MPFR_RNDN);
    }
    mpfr_div(result, result, view->zoom, MPFR_RNDN);
}

uint64_t deep_exact_pixel(
    const struct deep_exact_view *view, double offset_re, double offset_im, uint64_t limit, double *escaped_re,
    double *escaped_im) {
    mpfr_t cr, ci, t;
    mpfr_inits2(view->bits, cr, ci, t, (mpfr_ptr)0);
    exact_offset(view, offset_re, t);
    mpfr_add(cr, view->re, t, MPFR_RNDN);
    exact_offset(view, offset_im, t);
    mpfr_add(ci, view->im, t, MPFR_RNDN);
    uint64_t count = mpfr_escape_count(cr, ci, view->bits, limit, escaped_re, escaped_im);
    mpfr_clears(cr, ci, t, (mpfr_ptr)0);
    return count;
}
