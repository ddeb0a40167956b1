// gjkctl trace: one pair's GJK (and EPA) iterations. Left, the world: the two shapes, the
// simplex's support points on each core, the new support point. Right, the cores' Minkowski
// difference D = A - B: its hull, the origin, the simplex (GJK) or polytope (EPA), the point
// nearest the origin, the search direction, the support point found. Below, the bounds
// closing, and an SVG of the final state. #step=K opens step K.
import { THREE, stage, setPose, partObject, fmt, el, svgEl, lineChart } from './common.js';
import { ConvexGeometry } from 'three/examples/jsm/geometries/ConvexGeometry.js';

const V = (a) => new THREE.Vector3(a[0], a[1], a[2]);
const COLOR_A = 0x4a78c0, COLOR_B = 0x4aa060, COLOR_NEW = 0xff7a00, COLOR_V = 0x8a2be2;

function dot(color, r) {
  return new THREE.Mesh(new THREE.SphereGeometry(r, 14, 10), new THREE.MeshBasicMaterial({ color, depthTest: false, transparent: true }));
}
function line(points, color, loop) {
  const g = new THREE.BufferGeometry().setFromPoints(points);
  const m = new THREE.LineBasicMaterial({ color, depthTest: false, transparent: true });
  return loop ? new THREE.LineLoop(g, m) : new THREE.Line(g, m);
}
function segmentsOf(points) {
  const out = [];
  for (let i = 0; i < points.length; i++) for (let j = i + 1; j < points.length; j++) out.push(points[i], points[j]);
  return out;
}
function hullMesh(points, color, opacity) {
  if (points.length < 4) return null;
  try {
    const g = new ConvexGeometry(points);
    const m = new THREE.Mesh(g, new THREE.MeshStandardMaterial({ color, transparent: true, opacity, depthWrite: false, side: THREE.DoubleSide, flatShading: true }));
    m.add(new THREE.LineSegments(new THREE.EdgesGeometry(g, 20), new THREE.LineBasicMaterial({ color: 0x555555, transparent: true, opacity: 0.35 })));
    return m;
  } catch (e) { return null; }
}
function clear(group) {
  for (const c of [...group.children]) {
    group.remove(c);
    c.traverse((o) => { if (o.geometry) o.geometry.dispose(); if (o.material) o.material.dispose(); });
  }
}
function boxOf(points) {
  const b = new THREE.Box3();
  for (const p of points) b.expandByPoint(p);
  return b;
}

export function tracePage(data) {
  document.title = `gjkd trace: ${data.title}`;
  const steps = data.steps, n = steps.length, res = data.result;
  const root = el('div', { id: 'trace' }, document.body);
  const head = el('div', { class: 'head' }, root);
  el('h1', { text: `GJK trace: ${data.title}` }, head);
  const where = data.trajectory !== undefined ? `waypoint ${data.waypoint} of ${data.trajectory}` : 'the current state';
  const nG = steps.filter((s) => s.phase === 'GJK').length, nE = n - nG;
  el('div', { class: 'sub', text: `revision ${data.revision}, ${where}: ${res.status}, distance ${fmt(res.padded_distance)}` +
    (data.daemon_distance !== undefined ? ` (the daemon: ${fmt(data.daemon_distance)})` : '') +
    ` — ${nG} GJK and ${nE} EPA iterations on the cores (margins and radii ${fmt(data.inflate)}, padding ${fmt(data.padding)} added after)` +
    (data.truncated ? ' — trace truncated' : '') }, head);

  const row = el('div', { class: 'row' }, root);
  const left = el('div', { id: 'world', class: 'canvas' }, row);
  const right = el('div', { id: 'mink', class: 'canvas' }, row);
  el('div', { class: 'tag', text: 'world: A, B and their support points' }, left);
  el('div', { class: 'tag', text: 'D = A − B (cores): origin, simplex, direction, support point' }, right);
  const bar = el('div', { class: 'bar' }, root);
  const prev = el('button', { id: 'prev', text: '◀' }, bar);
  const play = el('button', { id: 'play', text: '▶ play' }, bar);
  const next = el('button', { id: 'next', text: '▶' }, bar);
  const slider = el('input', { id: 'slider', type: 'range', min: 0, max: Math.max(0, n), step: 1, value: 0 }, bar);
  const label = el('span', { id: 'step', class: 'wp' }, bar);
  const info = el('div', { id: 'info', class: 'info' }, root);
  const panels = el('div', { class: 'panels' }, root);
  const boundsSvg = svgEl('svg', { id: 'bounds' }, panels);
  const gapSvg = svgEl('svg', { id: 'gap' }, panels);
  const finalSvg = svgEl('svg', { id: 'final' }, panels);

  // World view.
  const w = stage(left);
  const shapes = [];
  for (const [side, color] of [[data.a, COLOR_A], [data.b, COLOR_B]]) {
    const o = partObject(side.part.shape, color, 0.3);
    const g = new THREE.Group();
    g.add(o); // side.pose is the part's world pose
    setPose(g, side.pose);
    w.scene.add(g);
    shapes.push(g);
  }
  const wGroup = new THREE.Group();
  w.scene.add(wGroup);
  w.scene.updateMatrixWorld(true);
  const wBox = new THREE.Box3();
  for (const g of shapes) wBox.expandByObject(g);
  const wSize = wBox.getSize(new THREE.Vector3()).length() || 1;
  w.frame(wBox.clone().expandByScalar(0.05 * wSize));

  // Minkowski difference view.
  const m = stage(right);
  const diff = data.difference.map(V);
  const dMesh = hullMesh(diff, 0x999999, 0.18);
  if (dMesh) m.scene.add(dMesh);
  const mBox = boxOf(diff).expandByPoint(new THREE.Vector3(0, 0, 0));
  const mSize = mBox.getSize(new THREE.Vector3()).length() || 1;
  m.scene.add(new THREE.AxesHelper(0.15 * mSize));
  const origin = dot(0x000000, 0.012 * mSize);
  m.scene.add(origin);
  const mGroup = new THREE.Group();
  m.scene.add(mGroup);
  m.frame(mBox.clone().expandByScalar(0.05 * mSize));

  // Bounds: GJK's on the cores' distance, then EPA's on the depth.
  const lows = steps.map((s) => s.lower), ups = steps.map((s) => s.upper);
  const chart = lineChart(boundsSvg, n, [
    { values: ups, color: '#c0392b', label: 'upper' }, { values: lows, color: '#2471a3', label: 'lower' }],
  [], { width: 380, height: 210, xlabel: 'step (GJK, then EPA)', ylabel: 'bounds (m): distance (GJK), depth (EPA)' });
  const gaps = steps.map((s) => Math.max(s.upper - s.lower, 1e-18));
  const gchart = lineChart(gapSvg, n, [{ values: gaps, color: '#555', label: 'gap' }], [],
    { width: 380, height: 210, xlabel: 'step', ylabel: 'gap upper − lower (m, log)', log: true });
  const firstEpa = steps.findIndex((s) => s.phase === 'EPA');
  for (const c of [chart, gchart]) {
    if (firstEpa > 0) {
      const x = (c.x(firstEpa - 1) + c.x(firstEpa)) / 2;
      svgEl('line', { x1: x, x2: x, y1: c.T, y2: c.H - c.B, stroke: '#aaa', 'stroke-dasharray': '3 3' }, c.svg);
      svgEl('text', { x: x + 3, y: c.T + 12, 'font-size': 10, fill: '#777', text: 'EPA' }, c.svg);
    }
  }
  const markers = [chart, gchart].map((c) => svgEl('line', { stroke: '#e80', 'stroke-width': 2, y1: c.T, y2: c.H - c.B }, c.svg));
  finalState(finalSvg, data);

  const r = 0.012 * wSize, rm = 0.012 * mSize;
  function show(k, fromUser) {
    k = Math.max(0, Math.min(n, k | 0));
    slider.value = String(k);
    clear(wGroup);
    clear(mGroup);
    // Every support point found before this step, faint.
    for (let i = 0; i < Math.min(k, n); i++) {
      const p = dot(0x888888, rm * 0.5);
      p.position.copy(V(steps[i].support.w));
      mGroup.add(p);
    }
    if (k === n) {
      // The answer: witnesses and the segment between them.
      const pa = V(res.point_a), pb = V(res.point_b);
      wGroup.add(line([pa, pb], 0xd00000));
      for (const [p, c] of [[pa, COLOR_A], [pb, COLOR_B]]) { const d = dot(c, r * 1.3); d.position.copy(p); wGroup.add(d); }
      const last = steps[n - 1];
      if (last) {
        const cl = dot(COLOR_V, rm * 1.2); cl.position.copy(V(last.closest)); mGroup.add(cl);
        mGroup.add(line([new THREE.Vector3(), V(last.closest)], COLOR_V));
      }
      label.textContent = `answer (after ${n} steps)`;
      info.textContent = `${res.status}: distance ${fmt(res.padded_distance)}, witnesses ${res.point_a.map((x) => x.toFixed(4)).join(' ')} → ${res.point_b.map((x) => x.toFixed(4)).join(' ')}, ` +
        `bounds [${fmt(res.lower_bound)}, ${fmt(res.upper_bound)}]`;
    } else {
      const s = steps[k];
      const pts = s.points;
      const A = pts.map((p) => V(p.a)), B = pts.map((p) => V(p.b)), W = pts.map((p) => V(p.w));
      for (const [set, c] of [[A, COLOR_A], [B, COLOR_B]]) {
        for (const p of set) { const d = dot(c, r); d.position.copy(p); wGroup.add(d); }
        if (s.phase === 'GJK' && set.length > 1) wGroup.add(new THREE.LineSegments(new THREE.BufferGeometry().setFromPoints(segmentsOf(set)), new THREE.LineBasicMaterial({ color: c, depthTest: false, transparent: true })));
      }
      for (const [p, c] of [[V(s.support.a), COLOR_NEW], [V(s.support.b), COLOR_NEW]]) { const d = dot(c, r * 1.4); d.position.copy(p); wGroup.add(d); }
      wGroup.add(line([V(s.support.a), V(s.support.b)], COLOR_NEW));
      // D: the simplex or polytope, its point nearest the origin, the direction, the new point.
      if (s.phase === 'GJK') {
        for (const p of W) { const d = dot(0x333333, rm); d.position.copy(p); mGroup.add(d); }
        if (W.length > 1) mGroup.add(new THREE.LineSegments(new THREE.BufferGeometry().setFromPoints(segmentsOf(W)), new THREE.LineBasicMaterial({ color: 0x222222, depthTest: false, transparent: true })));
        if (W.length === 3) {
          const g = new THREE.BufferGeometry().setFromPoints(W);
          mGroup.add(new THREE.Mesh(g, new THREE.MeshBasicMaterial({ color: 0x6688cc, transparent: true, opacity: 0.35, side: THREE.DoubleSide, depthWrite: false })));
        }
      } else {
        const poly = hullMesh(W, 0x6688cc, 0.25);
        if (poly) mGroup.add(poly);
        for (const p of W) { const d = dot(0x333333, rm * 0.6); d.position.copy(p); mGroup.add(d); }
        const f = s.face.map((i) => W[i]);
        const g = new THREE.BufferGeometry().setFromPoints(f);
        mGroup.add(new THREE.Mesh(g, new THREE.MeshBasicMaterial({ color: 0xffcc00, transparent: true, opacity: 0.8, side: THREE.DoubleSide, depthTest: false })));
      }
      const c = V(s.closest);
      const cl = dot(COLOR_V, rm * 1.1); cl.position.copy(c); mGroup.add(cl);
      mGroup.add(line([new THREE.Vector3(), c], COLOR_V));
      const dir = V(s.direction);
      if (dir.length() > 0) {
        mGroup.add(new THREE.ArrowHelper(dir.clone().normalize(), c, 0.25 * mSize, COLOR_NEW, 0.05 * mSize, 0.025 * mSize));
      }
      const sp = dot(COLOR_NEW, rm * 1.5); sp.position.copy(V(s.support.w)); mGroup.add(sp);
      label.textContent = `step ${k + 1} / ${n}: ${s.phase} iteration ${s.iteration}`;
      info.textContent = `${s.phase === 'GJK' ? `simplex of ${pts.length}` : `polytope of ${pts.length} vertices, face ${s.face.join(' ')}`}; ` +
        `${s.phase === 'GJK' ? 'distance' : 'depth'} in [${fmt(s.lower)}, ${fmt(s.upper)}], gap ${fmt(s.upper - s.lower)}`;
    }
    for (const [mk, c] of [[markers[0], chart], [markers[1], gchart]]) {
      const x = c.x(Math.min(k, n - 1));
      mk.setAttribute('x1', x); mk.setAttribute('x2', x);
    }
    if (fromUser) history.replaceState(null, '', `#step=${k}`);
    w.render();
    m.render();
    document.body.dataset.step = String(k);
  }
  const fromHash = () => { const mt = /step=(\d+)/.exec(location.hash); return mt ? parseInt(mt[1], 10) : 0; };
  slider.addEventListener('input', () => show(parseInt(slider.value, 10), true));
  prev.addEventListener('click', () => show(parseInt(slider.value, 10) - 1, true));
  next.addEventListener('click', () => show(parseInt(slider.value, 10) + 1, true));
  let timer = null;
  play.addEventListener('click', () => {
    if (timer) { clearInterval(timer); timer = null; play.textContent = '▶ play'; return; }
    play.textContent = '❚❚ pause';
    timer = setInterval(() => show((parseInt(slider.value, 10) + 1) % (n + 1), true), 500);
  });
  window.addEventListener('hashchange', () => show(fromHash(), false));
  show(fromHash(), false);
}

// The final state in the plane of the normal n and a direction u across it: the two shapes'
// outlines (their supports in that plane's directions, margins included), the witnesses, the
// normal from A towards B.
function finalState(svg, data) {
  const f = data.final, res = data.result;
  const u = f.u, nn = f.n;
  const proj = (p) => [p[0] * u[0] + p[1] * u[1] + p[2] * u[2], p[0] * nn[0] + p[1] * nn[1] + p[2] * nn[2]];
  const pa = proj(res.point_a), pb = proj(res.point_b);
  const all = f.outline_a.concat(f.outline_b, [pa, pb]);
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const [x, y] of all) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
  const W = 380, H = 210, pad = 16, s = Math.min((W - 2 * pad) / Math.max(x1 - x0, 1e-9), (H - 2 * pad - 14) / Math.max(y1 - y0, 1e-9));
  const X = (x) => pad + (x - x0) * s + ((W - 2 * pad) - (x1 - x0) * s) / 2;
  const Y = (y) => H - pad - (y - y0) * s - ((H - 2 * pad - 14) - (y1 - y0) * s) / 2;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`); svg.setAttribute('width', W); svg.setAttribute('height', H);
  svgEl('rect', { width: W, height: H, fill: 'white', stroke: '#999' }, svg);
  svgEl('text', { x: 6, y: 14, 'font-size': 11, text: `final state, in the plane of the normal: ${res.status} ${fmt(res.padded_distance)}` }, svg);
  for (const [o, c, name] of [[f.outline_a, '#4a78c0', data.a.name], [f.outline_b, '#4aa060', data.b.name]]) {
    svgEl('polygon', { points: o.map(([x, y]) => `${X(x).toFixed(1)},${Y(y).toFixed(1)}`).join(' '), fill: c, 'fill-opacity': 0.25, stroke: c }, svg);
    const cx = o.reduce((a, p) => a + p[0], 0) / o.length, cy = o.reduce((a, p) => a + p[1], 0) / o.length;
    svgEl('text', { x: X(cx), y: Y(cy), 'text-anchor': 'middle', 'font-size': 10, fill: c, text: name }, svg);
  }
  svgEl('line', { x1: X(pa[0]), y1: Y(pa[1]), x2: X(pb[0]), y2: Y(pb[1]), stroke: '#d00', 'stroke-width': 2 }, svg);
  for (const [p, c] of [[pa, '#4a78c0'], [pb, '#4aa060']]) svgEl('circle', { cx: X(p[0]), cy: Y(p[1]), r: 3.5, fill: c, stroke: '#000' }, svg);
  const nz = proj(res.normal), len = 30;
  const nl = Math.hypot(nz[0], nz[1]);
  if (nl > 0) {
    const ex = X(pa[0]) + (len * nz[0]) / nl, ey = Y(pa[1]) - (len * nz[1]) / nl;
    svgEl('line', { x1: X(pa[0]), y1: Y(pa[1]), x2: ex, y2: ey, stroke: '#ff7a00', 'stroke-width': 1.5 }, svg);
    svgEl('circle', { cx: ex, cy: ey, r: 2, fill: '#ff7a00' }, svg);
    svgEl('text', { x: ex + 3, y: ey, 'font-size': 10, fill: '#ff7a00', text: 'normal' }, svg);
  }
}
