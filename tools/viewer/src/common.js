// Shared by the view and the trace page: the page's data, the three.js stage (renderer, z-up
// camera, orbit controls, lights), the shapes of gjkd as meshes, colours of distances.
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { ConvexGeometry } from 'three/examples/jsm/geometries/ConvexGeometry.js';

export { THREE };

// The document gjkctl (or the Python client) wrote into <script id="gjkd-data">.
export function pageData() {
  const el = document.getElementById('gjkd-data');
  return JSON.parse(el.textContent);
}

// A pose [px, py, pz, qw, qx, qy, qz] onto an Object3D.
export function setPose(obj, p) {
  obj.position.set(p[0], p[1], p[2]);
  obj.quaternion.set(p[4], p[5], p[6], p[3]);
}

export function stage(container) {
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.setClearColor(0xf4f6f8, 1);
  container.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(45, 1, 0.001, 1000);
  camera.up.set(0, 0, 1);
  const controls = new OrbitControls(camera, renderer.domElement);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x667788, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.set(2, -3, 5);
  scene.add(sun);
  const st = { renderer, scene, camera, controls, container };
  st.resize = () => {
    const w = container.clientWidth || 800, h = container.clientHeight || 500;
    renderer.setSize(w, h, false);
    renderer.domElement.style.width = '100%';
    renderer.domElement.style.height = '100%';
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    st.render();
  };
  st.render = () => renderer.render(scene, camera);
  // Frames the camera on a box (from the front-right, a little above).
  st.frame = (box) => {
    const c = box.getCenter(new THREE.Vector3());
    const r = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 1e-3);
    const d = (0.8 * r) / Math.sin((camera.fov * Math.PI) / 360);
    camera.position.set(c.x + 0.75 * d, c.y - 0.95 * d, c.z + 0.6 * d);
    camera.near = d / 1000;
    camera.far = d * 20;
    camera.updateProjectionMatrix();
    controls.target.copy(c);
    controls.update();
  };
  controls.addEventListener('change', st.render);
  window.addEventListener('resize', st.resize);
  st.resize();
  return st;
}

function pointsOf(xyz) {
  const v = [];
  for (let i = 0; i + 2 < xyz.length; i += 3) v.push(new THREE.Vector3(xyz[i], xyz[i + 1], xyz[i + 2]));
  return v;
}

// The core shape of a part (shape.h): centred on and aligned with its local frame, z the axis.
// Hulls come as the vertices the daemon keeps. The margin is not drawn (witness points lie on
// the shape inflated by margin and padding).
export function shapeGeometry(s) {
  const k = s.kind;
  if (k === 'sphere') return new THREE.SphereGeometry(Math.max(s.radius, 1e-4), 32, 16);
  if (k === 'box') return new THREE.BoxGeometry(2 * s.half_extents[0], 2 * s.half_extents[1], 2 * s.half_extents[2]);
  if (k === 'cylinder' || k === 'cone') {
    const g = new THREE.CylinderGeometry(k === 'cone' ? 0 : s.radius, s.radius, 2 * s.half_height, 40);
    g.rotateX(Math.PI / 2); // three's axis y -> gjkd's z (apex at +z for a cone)
    return g;
  }
  if (k === 'capsule') {
    const g = new THREE.CapsuleGeometry(s.radius, 2 * s.half_height, 8, 24);
    g.rotateX(Math.PI / 2);
    return g;
  }
  if (k === 'point') return new THREE.SphereGeometry(0.005, 8, 6);
  if (k === 'hull' || k === 'convex') {
    const pts = pointsOf(s.vertices || []);
    if (pts.length >= 4) {
      try {
        const g = new ConvexGeometry(pts);
        if (g.getAttribute('position').count > 0) return g;
      } catch (e) { /* flat or degenerate: drawn as its outline below */ }
    }
    return null;
  }
  return null;
}

// A mesh (or, for a degenerate hull, its points and edges) of a part, in its local frame.
export function partObject(s, color, opacity) {
  const g = shapeGeometry(s);
  if (g) {
    const m = new THREE.MeshStandardMaterial({
      color, roughness: 0.75, metalness: 0.05, flatShading: s.kind === 'hull' || s.kind === 'convex',
      transparent: opacity < 1, opacity, depthWrite: opacity >= 1,
    });
    const mesh = new THREE.Mesh(g, m);
    const edges = new THREE.LineSegments(new THREE.EdgesGeometry(g, 25),
      new THREE.LineBasicMaterial({ color: 0x333333, transparent: true, opacity: 0.25 }));
    mesh.add(edges);
    return mesh;
  }
  const pts = pointsOf(s.vertices || []);
  const grp = new THREE.Group();
  const pg = new THREE.BufferGeometry().setFromPoints(pts);
  grp.add(new THREE.Points(pg, new THREE.PointsMaterial({ color, size: 6, sizeAttenuation: false })));
  if (pts.length > 1) grp.add(new THREE.LineLoop(pg, new THREE.LineBasicMaterial({ color })));
  return grp;
}

// Distance colour: red at contact or overlap, through orange and yellow to green and blue at
// the page's max distance.
export function distanceColor(d, maxD) {
  const c = new THREE.Color();
  if (!(d > 0)) return c.setHSL(0, 0.9, 0.45);
  const t = Math.min(d / (maxD > 0 ? maxD : 1), 1);
  return c.setHSL(0.02 + 0.6 * t, 0.85, 0.45);
}

export function fmt(d) {
  if (d === null || d === undefined || !isFinite(d)) return '—';
  const a = Math.abs(d);
  if (a !== 0 && a < 1e-3) return d.toExponential(3) + ' m';
  return d.toFixed(4) + ' m';
}

export function el(tag, attrs, parent) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) {
    if (k === 'text') e.textContent = attrs[k];
    else e.setAttribute(k, attrs[k]);
  }
  if (parent) parent.appendChild(e);
  return e;
}

const SVG = 'http://www.w3.org/2000/svg';
export function svgEl(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs || {}) {
    if (k === 'text') e.textContent = attrs[k];
    else e.setAttribute(k, attrs[k]);
  }
  if (parent) parent.appendChild(e);
  return e;
}

// A line chart into an <svg>: series [{values, color, label}] over x = 0..n-1, optional
// horizontal lines [{y, color, label}]; returns {x(i), y(v), svg}.
export function lineChart(svg, n, series, hlines, opts) {
  const W = opts.width, H = opts.height, L = 62, R = 14, T = 22, B = 30;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('width', W);
  svg.setAttribute('height', H);
  let lo = Infinity, hi = -Infinity;
  for (const s of series) for (const v of s.values) if (v !== null && isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  for (const h of hlines) { lo = Math.min(lo, h.y); hi = Math.max(hi, h.y); }
  if (!isFinite(lo)) { lo = 0; hi = 1; }
  if (opts.log) { lo = Math.log10(Math.max(lo, 1e-18)); hi = Math.log10(Math.max(hi, 1e-18)); }
  if (hi - lo < 1e-12) { hi = lo + 1; }
  const pad = 0.06 * (hi - lo); lo -= pad; hi += pad;
  const tr = (v) => (opts.log ? Math.log10(Math.max(v, 1e-18)) : v);
  const x = (i) => L + (n > 1 ? ((W - L - R) * i) / (n - 1) : (W - L - R) / 2);
  const y = (v) => T + ((H - T - B) * (hi - tr(v))) / (hi - lo);
  svgEl('rect', { x: L, y: T, width: W - L - R, height: H - T - B, fill: 'white', stroke: '#999' }, svg);
  // Ticks at 1, 2 or 5 times a power of ten, about five of them.
  const raw = (hi - lo) / 5, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const tick = raw / mag > 5 ? 10 * mag : raw / mag > 2 ? 5 * mag : raw / mag > 1 ? 2 * mag : mag;
  for (let v = Math.ceil(lo / tick) * tick; v <= hi; v += tick) {
    const yy = T + ((H - T - B) * (hi - v)) / (hi - lo);
    const t = Math.abs(v) < tick * 1e-6 ? 0 : v;
    svgEl('line', { x1: L, x2: W - R, y1: yy, y2: yy, stroke: '#eee' }, svg);
    svgEl('text', { x: L - 4, y: yy + 4, 'text-anchor': 'end', 'font-size': 10,
      text: opts.log ? `1e${Math.round(t)}` : String(+t.toPrecision(6)) }, svg);
  }
  const xstep = Math.max(1, Math.ceil(n / 10));
  for (let i = 0; i < n; i += xstep)
    svgEl('text', { x: x(i), y: H - B + 14, 'text-anchor': 'middle', 'font-size': 10, text: String(i) }, svg);
  svgEl('text', { x: L + (W - L - R) / 2, y: H - 4, 'text-anchor': 'middle', 'font-size': 11, text: opts.xlabel }, svg);
  svgEl('text', { x: 4, y: 14, 'font-size': 11, text: opts.ylabel }, svg);
  for (const h of hlines) {
    svgEl('line', { x1: L, x2: W - R, y1: y(h.y), y2: y(h.y), stroke: h.color, 'stroke-dasharray': '5 3' }, svg);
    svgEl('text', { x: W - R - 4, y: y(h.y) - 3, 'text-anchor': 'end', 'font-size': 10, fill: h.color, text: h.label }, svg);
  }
  for (const s of series) {
    let d = '';
    let gap = true; // a waypoint without a value breaks the line
    s.values.forEach((v, i) => {
      if (v !== null && isFinite(v)) { d += `${gap ? 'M' : 'L'}${x(i).toFixed(1)} ${y(v).toFixed(1)}`; gap = false; } else gap = true;
    });
    svgEl('path', { d, fill: 'none', stroke: s.color, 'stroke-width': 1.6 }, svg);
    s.values.forEach((v, i) => {
      if (v !== null && isFinite(v)) {
        const c = svgEl('circle', { cx: x(i), cy: y(v), r: 2.2, fill: s.pointColor ? s.pointColor(i) : s.color }, svg);
        svgEl('title', { text: `${i}: ${s.label} ${v}` }, c);
      }
    });
  }
  return { x, y, svg, T, B, H };
}
