// Loop nests that reach the advisor's analysis bounds, beside nests that do not
// The advisor counts its symbolic work in steps (never time) and bounds it per loop nest,
// per function and per run; a value bigger than it keeps becomes opaque where it is
// computed. Whatever reaches a bound is `unknown` with the bound and what was being
// analysed; everything else keeps its real verdict.
// * `update` applies 256 row updates (a macro) to one array in a 2-D nest: every store
//   is tested against every access (about 130 000 pairs, each a symbolic range test).
//   The nest reaches its bound testing dependences; the scaling loop beside it, in the
//   same function, is parallel.
// * `hash` indexes with a polynomial of degree 16 in four variables (a macro): bigger
//   than the analysis keeps, so that nest is `unknown` with its size; the copy beside it
//   is parallel.
// * `fold` indexes with 12 nested selections whose macro expands the operand 4096 times:
//   interpreting the function reaches the function's bound, and its nest is `unknown`.
//   (Before the bound this took minutes.)
//
// warpcheck-advise:
// warpcheck-expect-advice: parallel: unknown (`the analysis bound (4000000 steps per nest) was reached testing the dependences of loop i between lines 28 and`; `parallel: yes (1-D nest k`; `the index of h on line 44 is an expression of 4233 nodes (computed on line 44), more than the 2048 the analysis keeps`; `parallel: yes (1-D nest i`; `the analysis bound (16000000 steps per function) was reached interpreting the function at line 59`)

#define ROW(t) a[i * m * 9 + j * ((t) % 7 + 1) + (t)] = a[i * m * 9 + j * ((t) * 3 % 5 + 1) + 2 * (t)] + 1.0f;
#define ROW4(t) ROW(t) ROW((t) + 1) ROW((t) + 2) ROW((t) + 3)
#define ROW16(t) ROW4(t) ROW4((t) + 4) ROW4((t) + 8) ROW4((t) + 12)
#define ROW64(t) ROW16(t) ROW16((t) + 16) ROW16((t) + 32) ROW16((t) + 48)

void update(float *a, float *s, int n, int m) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++) {
      ROW64(0)
      ROW64(64)
      ROW64(128)
      ROW64(192)
    }
  }
  for (int k = 0; k < n; k++) {
    s[k] = 2.0f * s[k];
  }
}

#define SQUARE(x) ((x) * (x))
#define POW16(x) SQUARE(SQUARE(SQUARE(SQUARE(x))))

void hash(float *h, const float *v, float *w, int n, int m, int s) {
  for (int i = 0; i < n; i++) {
    h[POW16(i + n + m + s) & 1023] = v[i];
  }
  for (int i = 0; i < n; i++) {
    w[i] = v[i];
  }
}

#define PICK(t, e) (i > (t) ? (e) - 1 : (e) + 1)
#define PICK2(t, e) PICK(t, PICK((t) + 1, e))
#define PICK4(t, e) PICK2(t, PICK2((t) + 2, e))
#define PICK8(t, e) PICK4(t, PICK4((t) + 4, e))
#define PICK12(e) PICK8(1, PICK4(9, e))

void fold(float *out, const float *in, int n) {
  for (int i = 0; i < n; i++) {
    out[i] = in[PICK12(i)];
  }
}
