// gjkctl view: the scene the daemon holds (its hulls), a trajectory's waypoints on a slider
// with play, the witness segments of the reported pairs coloured by distance, the closest pair
// highlighted, and the clearance profile linked to the slider. #waypoint=K opens waypoint K.
import { THREE, stage, setPose, partObject, distanceColor, fmt, el, svgEl, lineChart } from './common.js';

const ROBOT_COLORS = [0x8fa8c8, 0xc8a88f, 0x9fc89a, 0xc89fc0];
const OBSTACLE_COLOR = 0xb8b8b0;

export function viewPage(data) {
  document.title = data.title || 'gjkd view';
  const root = el('div', { id: 'view' }, document.body);
  const head = el('div', { class: 'head' }, root);
  el('h1', { text: data.title || 'gjkd scene' }, head);
  el('div', { class: 'sub', text: `revision ${data.revision}, ${data.bodies.length} bodies, ` +
    `${data.waypoints.length} waypoint${data.waypoints.length === 1 ? '' : 's'}, pairs within ${fmt(data.max_distance)}` }, head);
  const canvasBox = el('div', { id: 'canvas', class: 'canvas' }, root);
  const bar = el('div', { class: 'bar' }, root);
  const play = el('button', { id: 'play', text: '▶ play' }, bar);
  const slider = el('input', { id: 'slider', type: 'range', min: 0, max: Math.max(0, data.waypoints.length - 1), step: 1, value: 0 }, bar);
  const label = el('span', { id: 'wp', class: 'wp' }, bar);
  const info = el('div', { id: 'info', class: 'info' }, root);
  const legend = el('div', { class: 'legend' }, root);
  el('span', { text: 'witness segments: ' }, legend);
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    const d = f * data.max_distance;
    el('span', { class: 'swatch', style: `background:#${distanceColor(f === 0 ? 0 : d, data.max_distance).getHexString()}` }, legend);
    el('span', { text: f === 0 ? ' ≤ 0  ' : ` ${fmt(d)}  ` }, legend);
  }
  el('span', { text: '  closest pair: thick, orange ends' }, legend);
  const chartBox = el('div', { class: 'chart' }, root);
  const svg = svgEl('svg', { id: 'profile' }, chartBox);

  const st = stage(canvasBox);
  const bodyObjs = data.bodies.map((b) => {
    const g = new THREE.Group();
    g.name = b.name;
    const ri = b.robot !== undefined ? Math.max(0, (data.robots || []).indexOf(b.robot)) : -1;
    const color = ri >= 0 ? ROBOT_COLORS[ri % ROBOT_COLORS.length] : OBSTACLE_COLOR;
    for (const p of b.parts) {
      const o = partObject(p.shape, color, b.robot !== undefined ? 1 : 0.55);
      setPose(o, p.pose);
      g.add(o);
    }
    st.scene.add(g);
    return g;
  });
  const pairGroup = new THREE.Group();
  st.scene.add(pairGroup);
  const grid = new THREE.GridHelper(6, 60, 0xcccccc, 0xe2e2e2);
  grid.rotateX(Math.PI / 2);
  st.scene.add(grid);

  // The chart: minimum distance per waypoint; a marker follows the slider, a click moves it.
  const n = data.waypoints.length;
  const mins = data.waypoints.map((w) => (w.min_distance === undefined ? null : w.min_distance));
  const chart = lineChart(svg, n, [{ values: mins, color: '#246', label: 'min distance',
    pointColor: (i) => (data.waypoints[i].colliding ? '#c00' : '#246') }],
  [{ y: 0, color: '#c00', label: 'contact' }, { y: data.max_distance, color: '#2a7', label: `max distance ${fmt(data.max_distance)}` }],
  { width: 900, height: 210, xlabel: 'waypoint', ylabel: 'minimum distance (m)' });
  const marker = svgEl('line', { id: 'marker', stroke: '#e80', 'stroke-width': 2, y1: chart.T, y2: chart.H - chart.B }, svg);
  svg.addEventListener('click', (ev) => {
    const r = svg.getBoundingClientRect();
    const px = ((ev.clientX - r.left) / r.width) * 900;
    let best = 0;
    for (let i = 0; i < n; i++) if (Math.abs(chart.x(i) - px) < Math.abs(chart.x(best) - px)) best = i;
    show(best, true);
  });

  // Witness segments are drawn over the shapes: on overlap they lie inside them.
  const onTop = (color) => new THREE.MeshBasicMaterial({ color, depthTest: false, transparent: true, opacity: 0.95 });
  pairGroup.renderOrder = 10;

  function clearPairs() {
    for (const c of [...pairGroup.children]) {
      pairGroup.remove(c);
      c.traverse((o) => { if (o.geometry) o.geometry.dispose(); if (o.material) o.material.dispose(); });
    }
  }

  let radius = 0.01;
  function show(k, fromUser) {
    k = Math.max(0, Math.min(n - 1, k | 0));
    const w = data.waypoints[k];
    slider.value = String(k);
    for (let b = 0; b < bodyObjs.length; b++) setPose(bodyObjs[b], w.poses.slice(7 * b, 7 * b + 7));
    clearPairs();
    const pairs = w.pairs || [];
    pairs.forEach((p, i) => {
      const a = new THREE.Vector3(...p.pa), b = new THREE.Vector3(...p.pb);
      const closest = i === w.closest;
      const color = distanceColor(p.d, data.max_distance);
      const len = a.distanceTo(b);
      const r = closest ? radius * 0.45 : radius * 0.18;
      if (len > 1e-9) {
        const cyl = new THREE.Mesh(new THREE.CylinderGeometry(r, r, len, 10), onTop(color));
        cyl.position.copy(a).add(b).multiplyScalar(0.5);
        cyl.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), b.clone().sub(a).normalize());
        pairGroup.add(cyl);
      }
      for (const q of [a, b]) {
        const s = new THREE.Mesh(new THREE.SphereGeometry(closest ? r * 2.2 : r * 2, 12, 8),
          onTop(closest ? 0xff6600 : color));
        s.position.copy(q);
        pairGroup.add(s);
      }
    });
    const c = w.closest >= 0 ? pairs[w.closest] : null;
    label.textContent = `waypoint ${k} / ${n - 1}`;
    info.textContent = !w.evaluated ? 'not evaluated (after the first collision)'
      : c ? `closest: ${data.bodies[c.a].name}/${c.part_a} – ${data.bodies[c.b].name}/${c.part_b}   ` +
        `${fmt(c.d)} (${c.status})   ${pairs.length} pair${pairs.length === 1 ? '' : 's'} within ${fmt(data.max_distance)}${w.colliding ? '   COLLIDING' : ''}`
        : `no pair within ${fmt(data.max_distance)}`;
    marker.setAttribute('x1', chart.x(k));
    marker.setAttribute('x2', chart.x(k));
    if (fromUser) history.replaceState(null, '', `#waypoint=${k}`);
    st.render();
    document.body.dataset.waypoint = String(k);
    document.body.dataset.closest = c ? String(c.d) : '';
    document.body.dataset.pairs = String(pairs.length);
  }

  function fromHash() {
    const m = /waypoint=(\d+)/.exec(location.hash);
    return m ? parseInt(m[1], 10) : 0;
  }

  // Frame the robots over the whole trajectory and the witness points (obstacles such as a
  // floor would shrink the robot to a speck), with room around them.
  const box = new THREE.Box3();
  const step = Math.max(1, Math.floor(n / 25));
  for (let k = 0; k < n; k += step) {
    const w = data.waypoints[k];
    for (let b = 0; b < bodyObjs.length; b++) setPose(bodyObjs[b], w.poses.slice(7 * b, 7 * b + 7));
    st.scene.updateMatrixWorld(true);
    data.bodies.forEach((b, i) => { if (b.robot !== undefined) box.expandByObject(bodyObjs[i]); });
    for (const p of w.pairs || []) { box.expandByPoint(new THREE.Vector3(...p.pa)); box.expandByPoint(new THREE.Vector3(...p.pb)); }
  }
  if (box.isEmpty()) for (const o of bodyObjs) box.expandByObject(o);
  if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
  const size = box.getSize(new THREE.Vector3()).length();
  box.expandByScalar(0.05 * size);
  radius = Math.max(size * 0.006, 1e-4);
  const ctr = box.getCenter(new THREE.Vector3());
  grid.position.set(ctr.x, ctr.y, 0);
  st.frame(box);

  slider.addEventListener('input', () => show(parseInt(slider.value, 10), true));
  let timer = null;
  play.addEventListener('click', () => {
    if (timer) { clearInterval(timer); timer = null; play.textContent = '▶ play'; return; }
    play.textContent = '❚❚ pause';
    timer = setInterval(() => {
      const k = (parseInt(slider.value, 10) + 1) % n;
      show(k, true);
    }, 100);
  });
  window.addEventListener('hashchange', () => show(fromHash(), false));
  window.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowRight') show(parseInt(slider.value, 10) + 1, true);
    if (e.key === 'ArrowLeft') show(parseInt(slider.value, 10) - 1, true);
  });
  show(fromHash(), false);
}
