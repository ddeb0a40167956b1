#!/usr/bin/python3
"""Draws the peer benchmark's figures as hand-written SVG (no matplotlib needed).

usage: plot_peers.py CURVE_CSV OUT_DIR TAG

Reads curve-TAG.csv written by bench_peers (engine, kind, pairing, vertices, median_ns,
cases) and writes into OUT_DIR:
  peers-TAG.svg    time per query against the total vertex count of the pair, log-log,
                   one line per engine; distance (separated cases) and penetration
                   (intersecting cases) side by side;
  scaling-TAG.svg  gjkd with and without hill climbing: time per distance query against
                   the vertex count of each shape (pairs of two shapes of the same class).
"""
import csv
import math
import sys

COLOURS = {
    "gjkd": "#d62728", "gjkd-warm": "#ff9896", "gjkd-linear": "#8c564b",
    "libccd-gjk": "#1f77b4", "libccd-mpr": "#aec7e8",
    "fcl-ccd": "#2ca02c", "fcl-ccd-sd": "#98df8a", "fcl-indep": "#9467bd",
    "fcl-indep-sd": "#c5b0d5", "bullet-gjk": "#ff7f0e", "bullet-epa2": "#bcbd22",
}
DASHED = {"gjkd-warm", "gjkd-linear", "fcl-ccd-sd", "fcl-indep-sd", "libccd-mpr",
          "bullet-epa2"}
FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"


def load(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.append((r["engine"], r["kind"], r["pairing"], int(r["vertices"]),
                         float(r["median_ns"])))
    return rows


def decades(lo, hi):
    a = math.floor(math.log10(lo))
    b = math.ceil(math.log10(hi))
    if a == b:
        b += 1
    return a, b


def fmt_tick(e):
    v = 10 ** e
    if v >= 1e6:
        return "10<tspan baseline-shift='super' font-size='8'>%d</tspan>" % e
    return "%g" % v


def panel(out, x0, y0, w, h, title, xlabel, series, xr, yr):
    """One log-log panel: frame, grid, ticks, labels, lines with markers."""
    (xa, xb), (ya, yb) = xr, yr

    def px(v):
        return x0 + (math.log10(v) - xa) / (xb - xa) * w

    def py(v):
        return y0 + h - (math.log10(v) - ya) / (yb - ya) * h

    out.append("<rect x='%g' y='%g' width='%g' height='%g' fill='white' stroke='#333'/>"
               % (x0, y0, w, h))
    for e in range(xa, xb + 1):
        for m in range(1, 10):
            v = m * 10 ** e
            if v > 10 ** xb:
                break
            x = px(v)
            if m == 1:
                out.append("<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='#ddd'/>"
                           % (x, y0, x, y0 + h))
                out.append("<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='#333'/>"
                           % (x, y0 + h, x, y0 + h + 6))
                out.append("<text x='%g' y='%g' font-size='11' text-anchor='middle' %s>%s"
                           "</text>" % (x, y0 + h + 19, FONT, fmt_tick(e)))
            else:
                out.append("<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='#333'/>"
                           % (x, y0 + h, x, y0 + h + 3))
    for e in range(ya, yb + 1):
        for m in range(1, 10):
            v = m * 10 ** e
            if v > 10 ** yb:
                break
            y = py(v)
            if m == 1:
                out.append("<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='#ddd'/>"
                           % (x0, y, x0 + w, y))
                out.append("<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='#333'/>"
                           % (x0 - 6, y, x0, y))
                out.append("<text x='%g' y='%g' font-size='11' text-anchor='end' %s>%s</text>"
                           % (x0 - 9, y + 4, FONT, fmt_tick(e)))
            else:
                out.append("<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='#333'/>"
                           % (x0 - 3, y, x0, y))
    out.append("<text x='%g' y='%g' font-size='14' font-weight='bold' text-anchor='middle' "
               "%s>%s</text>" % (x0 + w / 2, y0 - 10, FONT, title))
    out.append("<text x='%g' y='%g' font-size='12' text-anchor='middle' %s>%s</text>"
               % (x0 + w / 2, y0 + h + 40, FONT, xlabel))
    out.append("<text x='%g' y='%g' font-size='12' text-anchor='middle' transform='rotate(-90 "
               "%g %g)' %s>median time per query (ns)</text>"
               % (x0 - 52, y0 + h / 2, x0 - 52, y0 + h / 2, FONT))
    for name, pts in series:
        if not pts:
            continue
        colour = COLOURS.get(name, "#555")
        dash = " stroke-dasharray='6 3'" if name in DASHED else ""
        width = 2.6 if name == "gjkd" else 1.6
        path = " ".join("%s%.1f,%.1f" % ("M" if i == 0 else "L", px(x), py(y))
                        for i, (x, y) in enumerate(pts))
        out.append("<path d='%s' fill='none' stroke='%s' stroke-width='%g'%s/>"
                   % (path, colour, width, dash))
        for x, y in pts:
            out.append("<circle cx='%.1f' cy='%.1f' r='2.6' fill='%s'/>" % (px(x), py(y), colour))


def legend(out, x, y, names):
    for i, name in enumerate(names):
        colour = COLOURS.get(name, "#555")
        dash = " stroke-dasharray='6 3'" if name in DASHED else ""
        yy = y + i * 18
        out.append("<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='%s' stroke-width='2'%s/>"
                   % (x, yy, x + 26, yy, colour, dash))
        out.append("<circle cx='%g' cy='%g' r='2.6' fill='%s'/>" % (x + 13, yy, colour))
        out.append("<text x='%g' y='%g' font-size='12' %s>%s</text>"
                   % (x + 32, yy + 4, FONT, name))


def ranges(series):
    xs = [x for _, pts in series for x, _ in pts]
    ys = [y for _, pts in series for _, y in pts]
    if not xs:
        return (0, 1), (0, 1)
    return decades(min(xs), max(xs)), decades(min(ys), max(ys))


def svg(width, height, body, caption):
    head = ("<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d'>"
            "<rect width='100%%' height='100%%' fill='white'/>" % (width, height, width, height))
    foot = ("<text x='%d' y='%d' font-size='11' fill='#555' text-anchor='middle' %s>%s</text>"
            "</svg>\n" % (width / 2, height - 8, FONT, caption))
    return head + "\n".join(body) + foot


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    out_dir, tag = sys.argv[2], sys.argv[3]
    engines = []
    for r in rows:
        if r[0] not in engines:
            engines.append(r[0])

    def pts(engine, kind, pairing):
        return sorted((v, ns) for e, k, p, v, ns in rows
                      if e == engine and k == kind and p == pairing and ns > 0)

    # Figure 1: every engine, distance and penetration, against total vertices.
    shown = [e for e in engines if e != "gjkd-linear"]
    dist = [(e, pts(e, "distance", "total")) for e in shown]
    pen = [(e, pts(e, "penetration", "total")) for e in shown]
    xr1, yr1 = ranges(dist)
    xr2, yr2 = ranges(pen)
    xr = (min(xr1[0], xr2[0]), max(xr1[1], xr2[1]))
    yr = (min(yr1[0], yr2[0]), max(yr1[1], yr2[1]))
    body = []
    panel(body, 80, 50, 360, 330, "Distance (separated cases)",
          "total vertices of the pair", dist, xr, yr)
    panel(body, 540, 50, 360, 330, "Penetration depth (intersecting cases)",
          "total vertices of the pair", pen, xr, yr)
    legend(body, 925, 70, [e for e in shown if any(p for n, p in dist + pen if n == e)])
    with open("%s/peers-%s.svg" % (out_dir, tag), "w") as f:
        f.write(svg(1080, 450, body, "main subset, median over the cases of each vertex count; "
                    "shape preprocessing excluded (bench_peers, %s cases)" % tag))

    # Figure 2: gjkd with and without hill climbing, same-class pairs.
    scal = [(e, pts(e, "distance", "same")) for e in ("gjkd", "gjkd-linear") if e in engines]
    if scal and any(p for _, p in scal):
        xr, yr = ranges(scal)
        body = []
        panel(body, 80, 50, 460, 330, "gjkd: hill climbing against linear scan",
              "vertices per shape (both shapes of one class)", scal, xr, yr)
        legend(body, 565, 70, [e for e, p in scal if p])
        with open("%s/scaling-%s.svg" % (out_dir, tag), "w") as f:
            f.write(svg(700, 450, body, "distance queries, main subset, separated cases "
                        "(bench_peers, %s cases)" % tag))


if __name__ == "__main__":
    main()
