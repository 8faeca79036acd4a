/* The global translation between each two consecutive grey pictures, for StabilizeTests: reads
 * packed 8-bit grey pictures of WIDTH x HEIGHT from stdin and prints, for each picture after the
 * first, one line "dx dy" such that b(p) ~ a(p + d) (a the picture before, b this one).
 *
 * Block matching by the mean absolute difference over the middle of the picture: searched coarse
 * (a quarter size, +-12 px there, every second pixel), then fine (+-3 px around four times the
 * coarse best, every second pixel), with a parabola through the best and its neighbours for the
 * fraction (at most half a pixel). The same arithmetic the tests did in Swift (GlobalShift.swift
 * before it called this), which a debug build ran at some 170 ms a pair; compiled with
 * optimisation it takes about 1 ms. Built by the tests with `cc -O2 global-shift.c`.
 *
 *     global-shift WIDTH HEIGHT < frames.gray */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>

/* The mean absolute difference of b(x, y) and a(x + dx, y + dy) over the points `margin` or more
 * from every edge, every `step`-th pixel in both directions. */
static double cost(const unsigned char *a, const unsigned char *b, int width, int height,
                   int dx, int dy, int margin, int step) {
    long sum = 0, count = 0;
    for (int y = margin; y < height - margin; y += step) {
        const unsigned char *rb = b + (long)y * width, *ra = a + (long)(y + dy) * width + dx;
        for (int x = margin; x < width - margin; x += step) {
            int d = (int)rb[x] - (int)ra[x];
            sum += d < 0 ? -d : d;
            count++;
        }
    }
    return (double)sum / (double)(count > 1 ? count : 1);
}

/* `p` at a quarter of its size: each 4x4 block's mean, rounded down. */
static void quarter(const unsigned char *p, int width, int height, unsigned char *out) {
    int w = width / 4, h = height / 4;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int sum = 0;
            for (int j = 0; j < 4; j++)
                for (int i = 0; i < 4; i++) sum += p[(long)(y * 4 + j) * width + x * 4 + i];
            out[y * w + x] = (unsigned char)(sum / 16);
        }
}

/* The vertex of the parabola through (-1, l), (0, m), (1, r), within half a step of 0. */
static double vertex(double l, double m, double r) {
    double d = l - 2 * m + r;
    if (!(d > 0)) return 0;
    double v = 0.5 * (l - r) / d;
    return v < -0.5 ? -0.5 : v > 0.5 ? 0.5 : v;
}

/* The fine costs, each computed once: offsets within +-5 of the centre (the search's +-3 and the
 * parabola's neighbours). */
struct fine { const unsigned char *a, *b; int width, height, cx, cy; double known[11][11]; };

static double at(struct fine *f, int dx, int dy) {
    double *c = &f->known[dy - f->cy + 5][dx - f->cx + 5];
    if (*c < 0) *c = cost(f->a, f->b, f->width, f->height, dx, dy, 64, 2);
    return *c;
}

static void shift(const unsigned char *a, const unsigned char *b, const unsigned char *qa, const unsigned char *qb,
                  int width, int height, double *x, double *y) {
    int qw = width / 4, qh = height / 4, bx = 0, by = 0;
    double best = DBL_MAX;
    for (int dy = -12; dy <= 12; dy++)
        for (int dx = -12; dx <= 12; dx++) {
            double c = cost(qa, qb, qw, qh, dx, dy, 14, 2);
            if (c < best) { best = c; bx = dx; by = dy; }
        }
    struct fine f = { a, b, width, height, bx * 4, by * 4, { { 0 } } };
    for (int j = 0; j < 11; j++) for (int i = 0; i < 11; i++) f.known[j][i] = -1;
    int fx = f.cx, fy = f.cy;
    double fineCost = DBL_MAX;
    for (int dy = -3; dy <= 3; dy++)
        for (int dx = -3; dx <= 3; dx++) {
            double c = at(&f, f.cx + dx, f.cy + dy);
            if (c < fineCost) { fineCost = c; fx = f.cx + dx; fy = f.cy + dy; }
        }
    *x = fx + vertex(at(&f, fx - 1, fy), fineCost, at(&f, fx + 1, fy));
    *y = fy + vertex(at(&f, fx, fy - 1), fineCost, at(&f, fx, fy + 1));
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: global-shift WIDTH HEIGHT < frames.gray\n"); return 2; }
    int width = atoi(argv[1]), height = atoi(argv[2]);
    if (width < 160 || height < 160 || width % 4 || height % 4) { fprintf(stderr, "global-shift: %dx%d is too small\n", width, height); return 2; }
    size_t size = (size_t)width * height;
    unsigned char *pictures[2] = { malloc(size), malloc(size) }, *quarters[2] = { malloc(size / 16), malloc(size / 16) };
    int n = 0;
    while (fread(pictures[n % 2], 1, size, stdin) == size) {
        quarter(pictures[n % 2], width, height, quarters[n % 2]);
        if (n > 0) {
            double x, y;
            shift(pictures[(n - 1) % 2], pictures[n % 2], quarters[(n - 1) % 2], quarters[n % 2], width, height, &x, &y);
            printf("%.17g %.17g\n", x, y);
        }
        n++;
    }
    return n > 1 ? 0 : 1;
}
