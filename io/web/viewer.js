// ikfix HTML report, one clip: 3D before/after viewer, timeline, plots and summary.
// Reads the page's JSON (#ikfix-data, written by io/html/html_report.cpp) and needs the globals
// THREE (three.js build/three.min.js) and uPlot (dist/uPlot.iife.min.js). World metres, Y up.
// Test hook: window.ikfixViewer (frameCount, setFrame, jointNames, jointPosition, firstFrameMs),
// set once the whole page is built. The first frame is drawn before that: only the positions and
// the terrain are decoded before it; the series, timeline, plots and terrain edges come after.
(function () {
  'use strict';

  const COLORS = {
    after: 0x2f6fd6, before: 0x9aa3ad, ankle: 0xe4572e, toe: 0xf3a712, tip: 0x29bf12, source: 0xe08a1e,
    terrain: 0xc9c2b0, left: '#2f6fd6', right: '#d6452f',
  };

  // ---------- data ----------

  async function inflate(base64) {
    const bytes = fromBase64(base64);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  function fromBase64(base64) {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(base64);
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; ++i) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  // Zigzag LEB128 second differences per coordinate over frames (io/html/packed_data.hpp),
  // decoded into `values` (frame-major x, y, z per point) in frame order: until(f) makes frames
  // [0, f) ready, so the first frame is drawn before the others are decoded.
  function positionDecoder(base64, pointCount, frames, step) {
    const bytes = fromBase64(base64), n = pointCount * 3;
    const values = new Float64Array(frames * n);
    const last = new Float64Array(n), lastStep = new Float64Array(n);
    let at = 0, i = 0, done = 0;
    const until = (end) => {
      for (; done < Math.min(end, frames); ++done)
        for (let k = 0; k < n; ++k, ++i) {
          let b = bytes[at++], zigzag = b & 0x7f;
          for (let shift = 128; b & 0x80; shift *= 128) {
            b = bytes[at++];
            zigzag += (b & 0x7f) * shift;
          }
          lastStep[k] += zigzag % 2 ? -(zigzag + 1) / 2 : zigzag / 2;
          last[k] += lastStep[k];
          values[i] = last[k] * step;
        }
    };
    return { values, until };
  }

  // Varints on a grid: 0 absent (null), else 1 + zigzag delta from the last present value.
  function decodeSeries(bytes, step) {
    const out = [];
    let at = 0, last = 0;
    while (at < bytes.length) {
      let shift = 1, token = 0, b;
      do {
        b = bytes[at++];
        token += (b & 0x7f) * shift;
        shift *= 128;
      } while (b & 0x80);
      if (token === 0) { out.push(null); continue; }
      const z = token - 1;
      last += z % 2 ? -(z + 1) / 2 : z / 2;
      out.push(last * step);
    }
    return out;
  }

  // Every series decoded (base64 varints, io/html/view_json.cpp), nested as the page holds them.
  async function unpackSeries(packed) {
    if (Array.isArray(packed)) return packed;
    if (packed && packed.bytes !== undefined) return decodeSeries(fromBase64(packed.bytes), packed.step);
    const entries = Object.entries(packed);
    const values = await Promise.all(entries.map(([, v]) => unpackSeries(v)));
    return Object.fromEntries(entries.map(([k], i) => [k, values[i]]));
  }

  async function loadSeries(series) {
    const [pelvis, feet] = await Promise.all([
      unpackSeries(series.pelvis_change_m), Promise.all(series.feet.map(unpackSeries))]);
    return { pelvis_change_m: pelvis, feet };
  }

  // What the first frame draws: the terrain and frame 0 of the positions before and after (and of
  // the source's); decodeAll() decodes the other frames.
  async function loadFigures(view) {
    const p = view.positions;
    const terrain = Promise.all([inflate(view.terrain.vertices), inflate(view.terrain.triangles)]);
    const before = positionDecoder(p.before, view.pointCount, view.frames, p.step_m);
    const after = positionDecoder(p.after, view.pointCount, view.frames, p.step_m);
    const source = view.source
      ? positionDecoder(view.source.positions, view.source.pointCount, view.source.frames, p.step_m) : null;
    const decoders = [before, after, source].filter((d) => d);
    decoders.forEach((d) => d.until(1));
    const [vertices, triangles] = await terrain;
    return {
      source: source && source.values, before: before.values, after: after.values,
      decodeAll: () => decoders.forEach((d) => d.until(Infinity)),
      terrainVertices: new Float32Array(vertices.buffer, 0, vertices.length / 4),
      terrainTriangles: new Uint32Array(triangles.buffer, 0, triangles.length / 4),
    };
  }

  // ---------- DOM helpers ----------

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'text') node.textContent = v;
      else if (k === 'on') for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
      else node.setAttribute(k, v);
    }
    for (const c of children || []) node.append(c);
    return node;
  }

  function fmt(v, digits) {
    if (v === null || v === undefined) return '–';
    if (typeof v !== 'number') return String(v);
    if (v !== 0 && Math.abs(v) < Math.pow(10, -digits)) return v.toExponential(1);
    return v.toFixed(digits);
  }

  // ---------- 3D scene ----------

  function makeTerrain(decoded) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(decoded.terrainVertices, 3));
    geometry.setIndex(new THREE.BufferAttribute(decoded.terrainTriangles, 1));
    geometry.computeVertexNormals();
    const material = new THREE.MeshLambertMaterial({
      color: COLORS.terrain, flatShading: true, side: THREE.DoubleSide,
      polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1,
    });
    const group = new THREE.Group();
    group.add(new THREE.Mesh(geometry, material));
    return { group, geometry };
  }

  // The terrain's edges (after the first frame: finding them and compiling their shader can wait).
  function addTerrainEdges(terrain) {
    const edges = new THREE.EdgesGeometry(terrain.geometry, 20);
    terrain.group.add(new THREE.LineSegments(edges, new THREE.LineBasicMaterial({ color: 0x8a826f })));
  }

  // Bones as instanced cylinders, joints and foot points as instanced spheres. Every mesh colours
  // its instances (instanceColor) under one white material, so that all figures of the same
  // opacity share one shader program: fewer programs to compile before the first frame.
  function makeFigure(view, color, opacity, radius) {
    const transparent = opacity < 1;
    const material = new THREE.MeshLambertMaterial({ color: 0xffffff, transparent, opacity, depthWrite: !transparent });
    const bones = [];
    view.parents.forEach((parent, child) => { if (parent >= 0) bones.push([parent, child]); });
    const feet = [];
    for (const foot of view.feet)
      for (const [kind, point] of [['ankle', foot.ankle], ['toe', foot.toe], ['tip', foot.tip]])
        if (point >= 0) feet.push({ point, color: COLORS[kind] });
    const instanced = (geometry, colors) => {
      const mesh = new THREE.InstancedMesh(geometry, material, Math.max(1, colors.length));
      colors.forEach((c, i) => mesh.setColorAt(i, new THREE.Color(c)));
      mesh.count = colors.length;  // the meshes hold at least one instance: draw only real ones
      return mesh;
    };
    const sphere = new THREE.SphereGeometry(1, 12, 8);
    const boneMesh = instanced(new THREE.CylinderGeometry(1, 1, 1, 8, 1), bones.map(() => color));
    const jointMesh = instanced(sphere, Array.from({ length: view.pointCount }, () => color));
    const footMesh = instanced(sphere, feet.map((f) => f.color));
    const group = new THREE.Group();
    group.add(boneMesh, jointMesh, footMesh);
    return { group, bones, boneMesh, jointMesh, footMesh, feet, radius, pointCount: view.pointCount };
  }

  const tmp = {
    m: new THREE.Matrix4(), q: new THREE.Quaternion(), s: new THREE.Vector3(),
    a: new THREE.Vector3(), b: new THREE.Vector3(), up: new THREE.Vector3(0, 1, 0),
  };

  function pointAt(positions, pointCount, frame, point, out) {
    const i = (frame * pointCount + point) * 3;
    return out.set(positions[i], positions[i + 1], positions[i + 2]);
  }

  function poseFigure(figure, positions, frame) {
    const n = figure.pointCount, r = figure.radius;
    figure.bones.forEach(([parent, child], i) => {
      pointAt(positions, n, frame, parent, tmp.a);
      pointAt(positions, n, frame, child, tmp.b);
      const length = tmp.b.distanceTo(tmp.a);
      tmp.b.sub(tmp.a);
      if (length > 1e-9) tmp.q.setFromUnitVectors(tmp.up, tmp.b.divideScalar(length));
      else tmp.q.identity();
      pointAt(positions, n, frame, parent, tmp.a);
      pointAt(positions, n, frame, child, tmp.b);
      tmp.a.add(tmp.b).multiplyScalar(0.5);
      tmp.m.compose(tmp.a, tmp.q, tmp.s.set(r * 0.6, length, r * 0.6));
      figure.boneMesh.setMatrixAt(i, tmp.m);
    });
    tmp.q.identity();
    for (let p = 0; p < n; ++p) {
      tmp.m.compose(pointAt(positions, n, frame, p, tmp.a), tmp.q, tmp.s.set(r, r, r));
      figure.jointMesh.setMatrixAt(p, tmp.m);
    }
    figure.feet.forEach((f, i) => {
      tmp.m.compose(pointAt(positions, n, frame, f.point, tmp.a), tmp.q, tmp.s.set(r * 2, r * 2, r * 2));
      figure.footMesh.setMatrixAt(i, tmp.m);
    });
    figure.boneMesh.instanceMatrix.needsUpdate = true;
    figure.jointMesh.instanceMatrix.needsUpdate = true;
    figure.footMesh.instanceMatrix.needsUpdate = true;
  }

  // The points of the body: the pelvis and every point below it in the hierarchy (group nodes
  // above the pelvis, such as an FBX take's node at the origin, are not part of it); every point
  // when there is no pelvis.
  function bodyPoints(parents, pelvis) {
    const inBody = parents.map(() => pelvis < 0);
    if (pelvis >= 0) {
      inBody[pelvis] = true;
      // Parents come before their children in the view's order.
      parents.forEach((parent, p) => { if (parent >= 0 && inBody[parent]) inBody[p] = true; });
    }
    return parents.map((_, p) => p).filter((p) => inBody[p]);
  }

  // Height (m) of a body on one frame: its highest point less its lowest. At least 0.3 m, so
  // that a clip of collapsed joints still gets a usable camera.
  function figureHeight(positions, pointCount, points, frame) {
    let low = Infinity, high = -Infinity;
    for (const p of points) {
      const y = positions[(frame * pointCount + p) * 3 + 1];
      if (Number.isFinite(y)) { low = Math.min(low, y); high = Math.max(high, y); }
    }
    return high > low ? Math.max(0.3, high - low) : 1.8;
  }

  // Orbit camera around a target that follows the pelvis: drag to turn, wheel to zoom. It starts
  // far enough for the whole figure to fit the 45 degree view with room for a step either side
  // (1.8 figure heights: 3.2 m for a 1.8 m person; 8.5 m for a 4.7 m giant), and zooms out to 20
  // times that.
  function makeOrbit(camera, canvas, onChange, height) {
    const start = 1.8 * height;
    const orbit = { azimuth: -0.6, elevation: 0.3, distance: start, target: new THREE.Vector3() };
    let drag = null;
    canvas.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY }; canvas.setPointerCapture(e.pointerId); });
    canvas.addEventListener('pointerup', () => { drag = null; });
    canvas.addEventListener('pointermove', (e) => {
      if (!drag) return;
      orbit.azimuth -= (e.clientX - drag.x) * 0.008;
      orbit.elevation = Math.min(1.5, Math.max(-0.2, orbit.elevation + (e.clientY - drag.y) * 0.008));
      drag = { x: e.clientX, y: e.clientY };
      onChange();
    });
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      orbit.distance = Math.min(20 * start, Math.max(0.05 * start, orbit.distance * Math.exp(e.deltaY * 0.001)));
      onChange();
    }, { passive: false });
    orbit.apply = () => {
      const c = Math.cos(orbit.elevation);
      camera.position.set(
        orbit.target.x + orbit.distance * c * Math.sin(orbit.azimuth),
        orbit.target.y + orbit.distance * Math.sin(orbit.elevation),
        orbit.target.z + orbit.distance * c * Math.cos(orbit.azimuth));
      camera.lookAt(orbit.target);
    };
    return orbit;
  }

  function makeViewer(container, view, decoded) {
    const canvas = el('canvas', { class: 'viewport' });
    container.append(canvas);
    const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    const scene = new THREE.Scene();
    scene.background = new THREE.Color(0xeef1f5);
    scene.add(new THREE.HemisphereLight(0xffffff, 0x8d7f6a, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    sun.position.set(3, 8, 5);
    scene.add(sun);
    const camera = new THREE.PerspectiveCamera(45, 1, 0.02, 500);
    const viewer = { renderer, scene, camera, dirty: true };
    viewer.terrain = makeTerrain(decoded);
    scene.add(viewer.terrain.group);
    viewer.before = makeFigure(view, COLORS.before, 0.35, 0.018);
    viewer.after = makeFigure(view, COLORS.after, 1, 0.02);
    viewer.body = bodyPoints(view.parents, view.pelvis);
    viewer.height = figureHeight(decoded.after, view.pointCount, viewer.body, 0);
    scene.add(viewer.before.group, viewer.after.group);
    if (view.source) {  // retarget: the source clip with the character
      viewer.source = makeFigure({ parents: view.source.parents, pointCount: view.source.pointCount, feet: [] },
        COLORS.source, 0.85, 0.016);
      scene.add(viewer.source.group);
    }
    // The source stands beside the character, apart by two thirds of the taller one's height.
    viewer.besideOffset = 0.67 * Math.max(viewer.height,
      view.source ? figureHeight(decoded.source, view.source.pointCount,
        bodyPoints(view.source.parents, -1), 0) : 0);
    viewer.orbit = makeOrbit(camera, canvas, () => { viewer.dirty = true; }, viewer.height);
    viewer.resize = () => {
      const w = container.clientWidth, h = container.clientHeight;
      renderer.setSize(w, h, false);
      camera.aspect = w / Math.max(1, h);
      camera.updateProjectionMatrix();
      viewer.dirty = true;
    };
    new ResizeObserver(viewer.resize).observe(container);
    viewer.resize();
    return viewer;
  }

  // ---------- controls, timeline, plots, summary ----------

  function makeControls(state) {
    const play = el('button', { class: 'play', text: '▶', title: 'Play / pause (space)' });
    const speed = el('select', { title: 'Playback speed' },
      [0.1, 0.25, 0.5, 1, 2].map((s) => el('option', { value: s, text: s + '×' })));
    speed.value = '1';
    const scrub = el('input', { type: 'range', min: 0, max: state.frames - 1, value: 0, class: 'scrub' });
    const label = el('span', { class: 'frame-label' });
    const ghost = el('input', { type: 'checkbox', checked: '' });
    play.addEventListener('click', () => state.togglePlay());
    speed.addEventListener('change', () => { state.speed = Number(speed.value); });
    scrub.addEventListener('input', () => state.setFrame(Number(scrub.value)));
    ghost.addEventListener('change', () => state.showBefore(ghost.checked));
    const items = [play, speed, scrub, label, el('label', { class: 'toggle' }, [ghost,
      state.retarget ? ' transfer alone (ghost)' : ' before (ghost)'])];
    if (state.retarget) {
      const layoutSelect = el('select', { title: 'Source clip placement' }, [
        el('option', { value: 'beside', text: 'source beside' }), el('option', { value: 'over', text: 'source overlaid' }),
        el('option', { value: 'hidden', text: 'source hidden' })]);
      layoutSelect.addEventListener('change', () => state.placeSource(layoutSelect.value));
      items.push(layoutSelect);
    }
    const bar = el('div', { class: 'controls' }, items);
    return {
      bar,
      update(frame, playing) {
        play.textContent = playing ? '❚❚' : '▶';
        scrub.value = frame;
        label.textContent = `frame ${frame} / ${state.frames - 1} · ${(frame / state.fps).toFixed(3)} s`;
      },
    };
  }

  // Heel or toe pivot per planted frame: the slower of ankle and toe after the fix.
  function pivotKinds(view, decoded, leg, plant) {
    const foot = view.feet[leg], n = view.pointCount, kinds = [];
    for (let f = plant[0]; f <= plant[1]; ++f) {
      const g = Math.min(f + 1, plant[1]), h = Math.max(f - 1, plant[0]);
      const speed = (p) => p < 0 ? Infinity : pointAt(decoded.after, n, g, p, tmp.a).setY(0)
        .distanceTo(pointAt(decoded.after, n, h, p, tmp.b).setY(0));
      kinds.push(speed(foot.toe) < speed(foot.ankle) ? 'toe' : 'heel');
    }
    return kinds;
  }

  function span(track, frames, first, last, cls, title) {
    const s = el('div', { class: 'span ' + cls, title });
    s.style.left = (100 * first / frames) + '%';
    s.style.width = Math.max(0.15, 100 * (last - first + 1) / frames) + '%';
    track.append(s);
  }

  function makeTimeline(state, report, view, decoded) {
    const box = el('div', { class: 'timeline' });
    const legs = report.per_leg || [];
    legs.forEach((leg, l) => {
      const track = el('div', { class: 'track' });
      for (const plant of leg.plants || []) {
        const kinds = pivotKinds(view, decoded, l, plant);
        let start = 0;
        for (let i = 1; i <= kinds.length; ++i)
          if (i === kinds.length || kinds[i] !== kinds[start]) {
            span(track, state.frames, plant[0] + start, plant[0] + i - 1, 'plant ' + kinds[start],
              `plant ${plant[0]}–${plant[1]}, ${kinds[start]} pivot ${plant[0] + start}–${plant[0] + i - 1}`);
            start = i;
          }
      }
      for (const u of leg.unreachable || [])
        span(track, state.frames, u.first, u.last, 'unreachable',
          `unreachable ${u.first}–${u.last}: ${u.reason}, shortfall ${fmt(u.max_shortfall_m, 3)} m (worst frame ${u.worst_frame})`);
      track.addEventListener('click', (e) => {
        const r = track.getBoundingClientRect();
        state.setFrame(Math.round((e.clientX - r.left) / r.width * (state.frames - 1)));
      });
      const cursor = el('div', { class: 'cursor' });
      track.append(cursor);
      state.cursors.push(cursor);
      box.append(el('div', { class: 'row' }, [el('span', { class: 'row-label', text: leg.side }), track]));
    });
    box.append(el('div', { class: 'legend' }, [
      el('span', { class: 'key plant heel' }), ' heel pivot ', el('span', { class: 'key plant toe' }),
      ' toe pivot ', el('span', { class: 'key unreachable' }), ' unreachable']));
    box.append(worstButtons(state, report));
    return box;
  }

  // Every "frame" the report names as the worst of something, as a button that jumps there.
  function worstFrames(report) {
    const out = [];
    const add = (label, frame) => { if (Number.isInteger(frame) && frame >= 0) out.push({ label, frame }); };
    const t = report.totals || {};
    if (t.worst) add('worst shortfall', t.worst.frame);
    for (const leg of report.per_leg || []) {
      add(`${leg.side} max correction`, leg.max_correction_frame);
      for (const u of leg.unreachable || []) add(`${leg.side} unreachable (${u.reason})`, u.worst_frame);
    }
    for (const p of (report.body || {}).pelvis_limit || []) add('pelvis limit', p.worst_frame);
    for (const which of ['before', 'after']) {
      const m = (report.metrics || {})[which] || {};
      for (const [name, v] of Object.entries(m))
        if (v && typeof v === 'object' && 'frame' in v && name !== 'knee') add(`${name} (${which})`, v.frame);
        else if (name === 'foot_penetration' && v)
          for (const [sub, w] of Object.entries(v)) add(`${name}.${sub} (${which})`, w.frame);
    }
    return out;
  }

  function worstButtons(state, report) {
    const box = el('div', { class: 'worst' }, [el('span', { class: 'row-label', text: 'worst' })]);
    for (const w of worstFrames(report))
      box.append(el('button', { class: 'jump', 'data-frame': w.frame, text: `${w.label}: ${w.frame}`,
        on: { click: () => state.setFrame(w.frame) } }));
    return box;
  }

  const PLOTS = [
    { title: 'Lowest foot point above the terrain (m)', key: (f) => [['lowest_before_m', 'before'], ['lowest_after_m', 'after']] },
    { title: 'Planted pivot slide speed (m/s)', key: () => [['pivot_slide_before_mps', 'before'], ['pivot_slide_after_mps', 'after']] },
    { title: 'Knee angle (deg, 180 = straight)', key: () => [['knee_before_deg', 'before'], ['knee_after_deg', 'after']] },
    { title: 'Shortfall: fixed ankle to its target (m)', key: () => [['shortfall_m', 'after']] },
  ];

  function plotSeries(view, spec) {
    const xs = Array.from({ length: view.frames }, (_, i) => i);
    const data = [xs], series = [{ label: 'frame' }];
    view.series.feet.forEach((foot, l) => {
      for (const [key, which] of spec.key()) {
        data.push(foot[key]);
        series.push({
          label: `${l ? 'right' : 'left'} ${which}`, stroke: l ? COLORS.right : COLORS.left,
          width: which === 'after' ? 1.5 : 1, dash: which === 'before' ? [4, 3] : undefined, spanGaps: false,
        });
      }
    });
    return { data, series };
  }

  function makePlot(container, state, title, data, series) {
    const box = el('div', { class: 'plot' }, [el('div', { class: 'plot-title', text: title })]);
    container.append(box);
    const width = Math.max(300, box.clientWidth - 10);
    const plot = new uPlot({
      width, height: 150, series, legend: { show: true, live: false },
      cursor: { sync: { key: 'ikfix' }, drag: { x: false, y: false } },
      scales: { x: { time: false } }, axes: [{}, { size: 60 }],
    }, data, box);
    const line = el('div', { class: 'plot-frame' });
    plot.over.append(line);
    plot.over.addEventListener('click', () => {
      if (plot.cursor.idx !== null && plot.cursor.idx !== undefined) state.setFrame(plot.cursor.idx);
    });
    state.plots.push({ plot, line });
  }

  function makePlots(state, view) {
    const box = el('div', { class: 'plots' });
    state.plotBox = box;
    state.pendingPlots = () => {
      for (const spec of PLOTS) {
        const { data, series } = plotSeries(view, spec);
        makePlot(box, state, spec.title, data, series);
      }
      makePlot(box, state, 'Pelvis height, after − before (m)',
        [Array.from({ length: view.frames }, (_, i) => i), view.series.pelvis_change_m],
        [{ label: 'frame' }, { label: 'pelvis', stroke: '#555', width: 1.5 }]);
    };
    return box;
  }

  const METRICS = [
    ['penetration', 'max_m', 'Penetration, max (m)', 4],
    ['planted_penetration', 'max_m', 'Planted penetration, max (m)', 4],
    ['foot_penetration.nearest', 'max_m', 'Foot point depth, max (m)', 4],
    ['foot_penetration.planted_nearest', 'max_m', 'Planted foot point depth, max (m)', 4],
    ['slide', 'max_mps', 'Slide, max (m/s)', 4],
    ['slide', 'mean_mps', 'Slide, mean (m/s)', 5],
    ['float', 'mean_m', 'Float, mean (m)', 4],
    ['knee', 'limit_violation_deg', 'Knee limit violation (deg)', 2],
    ['rotation_speed', 'max_rad_s', 'Leg rotation speed, max (rad/s)', 2],
    ['jerk', 'foot_mean_mps3', 'Foot jerk, mean (m/s³)', 1],
    ['jerk', 'pelvis_mean_mps3', 'Pelvis jerk, mean (m/s³)', 1],
    ['bone_length_change', 'max', 'Bone length change, max (relative)', 2],
  ];

  function metricsTable(report) {
    // check reports measure the clip as it is only: that is "before".
    const given = report.metrics || {};
    const m = given.before || given.after ? given : { before: given };
    const rows = [el('tr', {}, [el('th', { text: 'metric' }), el('th', { text: 'before' }), el('th', { text: 'after' })])];
    for (const [group, key, label, digits] of METRICS) {
      const value = (which) => (group.split('.').reduce((o, k) => (o || {})[k], m[which]) || {})[key];
      if (value('before') === undefined && value('after') === undefined) continue;
      rows.push(el('tr', {}, [el('td', { text: label }), el('td', { text: fmt(value('before'), digits) }),
        el('td', { text: fmt(value('after'), digits) })]));
    }
    return el('table', { class: 'metrics' }, rows);
  }

  function settingsList(report) {
    const b = report.body || {}, legs = report.legs || {}, unit = report.unit || {};
    const items = [
      ['command', report.command], ['input', report.input], ['output', report.output || '–'],
      ['terrain', report.terrain], ['frames', `${report.frames} at ${fmt(report.fps, 3)} fps`],
      ['solver', report.solver], ['legs', `${legs.method || ''} (pelvis ${legs.pelvis || '?'})`],
      ['unit', `${unit.name || ''} (${unit.source || ''})`],
      ['floor', report.floor ? `${fmt(report.floor.height_m, 4)} m, ${report.floor.method}` : '–'],
      ['body rise', b.min_rise_m !== undefined ? `${fmt(b.min_rise_m, 3)} … ${fmt(b.max_rise_m, 3)} m` : '–'],
      ['pelvis drop', b.max_pelvis_drop_m !== undefined ? `max ${fmt(b.max_pelvis_drop_m, 3)} m, mean ${fmt(b.mean_pelvis_drop_m, 3)} m` : '–'],
      ['unreachable', `${(report.totals || {}).unreachable_frames || 0} frame(s)`],
    ];
    return el('dl', { class: 'settings' }, items.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v === undefined ? '–' : String(v) })]));
  }

  function makeSummary(report) {
    const warnings = report.warnings || [];
    return el('div', { class: 'summary' }, [
      el('h2', { text: 'Metrics' }), metricsTable(report),
      el('h2', { text: 'Settings' }), settingsList(report),
      el('h2', { text: `Warnings (${warnings.length})` }),
      warnings.length ? el('ul', { class: 'warnings' }, warnings.map((w) => el('li', { text: w })))
        : el('p', { class: 'muted', text: 'none' }),
    ]);
  }

  // ---------- state and loop ----------

  function makeState(view, decoded) {
    const state = {
      frames: view.frames, fps: view.fps, frame: 0, playing: false, speed: 1, time: 0,
      cursors: [], plots: [],
    };
    state.setFrame = (i) => {
      state.frame = Math.max(0, Math.min(state.frames - 1, Math.round(i)));
      state.time = state.frame / state.fps;
      state.changed = true;
    };
    state.togglePlay = () => { state.playing = !state.playing; state.changed = true; };
    state.retarget = !!view.source;
    state.placeSource = (how) => {
      const g = state.viewer.source.group;
      g.visible = how !== 'hidden';
      g.position.x = how === 'beside' ? state.viewer.besideOffset : 0;
      state.viewer.dirty = true;
    };
    state.showBefore = (on) => { state.viewer.before.group.visible = on; state.viewer.dirty = true; };
    state.jointPosition = (name, which) => {
      const j = view.jointNames.indexOf(name);
      if (j < 0) throw new Error('no joint called ' + name);
      const p = pointAt(which === 'before' ? decoded.before : decoded.after, view.pointCount, state.frame, j, tmp.a);
      return [p.x, p.y, p.z];
    };
    return state;
  }

  function showFrame(state, view, decoded) {
    const v = state.viewer, f = state.frame;
    poseFigure(v.after, decoded.after, f);
    poseFigure(v.before, decoded.before, f);
    if (v.source) poseFigure(v.source, decoded.source, f);
    pointAt(decoded.after, view.pointCount, f, Math.max(0, view.pelvis), tmp.a);
    v.orbit.target.lerp(tmp.a, state.snap ? 1 : 0.25);
    state.snap = false;
    state.controls.update(f, state.playing);
    const x = 100 * f / Math.max(1, state.frames - 1);
    for (const c of state.cursors) c.style.left = x + '%';
    for (const { plot, line } of state.plots) line.style.left = plot.valToPos(f, 'x') + 'px';
    v.dirty = true;
  }

  function loop(state, view, decoded) {
    let last = performance.now();
    const tick = (now) => {
      const dt = Math.min(0.1, (now - last) / 1000);
      last = now;
      if (state.playing) {
        state.time = (state.time + dt * state.speed) % (state.frames / state.fps);
        const f = Math.floor(state.time * state.fps);
        if (f !== state.frame) { state.frame = f; state.changed = true; }
      }
      if (state.changed) { showFrame(state, view, decoded); state.changed = false; }
      const target = state.viewer.orbit.target;
      pointAt(decoded.after, view.pointCount, state.frame, Math.max(0, view.pelvis), tmp.b);
      if (target.distanceTo(tmp.b) > 1e-4) { target.lerp(tmp.b, 0.25); state.viewer.dirty = true; }
      if (state.viewer.dirty) {
        state.viewer.orbit.apply();
        state.viewer.renderer.render(state.viewer.scene, state.viewer.camera);
        state.viewer.dirty = false;
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  // The page around the viewer; the timeline and the plots go into their boxes after the first
  // frame (finishPage).
  function layout(data, state, decoded) {
    const report = data.report, view = data.view;
    const app = document.getElementById('app');
    const stage = el('div', { class: 'stage' });
    state.controls = makeControls(state);
    state.timelineSlot = el('div');
    const header = el('header', {}, [el('h1', { text: data.title }),
      el('span', { class: 'badge', text: `${report.command} · ${report.frames} frames · ${fmt(report.fps, 2)} fps` })]);
    const left = el('div', { class: 'left' }, [stage, state.controls.bar, state.timelineSlot,
      makePlots(state, view)]);
    app.append(header, el('main', {}, [left, makeSummary(report)]));
    state.viewer = makeViewer(stage, view, decoded);
    if (state.retarget) state.placeSource('beside');
  }

  function drawNow(state, view) {
    showFrame(state, view, state.decoded);
    state.viewer.orbit.apply();
    state.viewer.renderer.render(state.viewer.scene, state.viewer.camera);
    state.viewer.dirty = false;
  }

  // After the first frame: the other frames, the terrain's edges, the timeline, the series and
  // their plots.
  async function finishPage(data, state, seriesReady) {
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    state.decoded.decodeAll();
    addTerrainEdges(state.viewer.terrain);
    state.timelineSlot.replaceWith(makeTimeline(state, data.report, data.view, state.decoded));
    data.view.series = await seriesReady;
    state.pendingPlots();
    state.changed = true;
  }

  // How many of the fixed body's points on the current frame the camera shows: in front of it
  // and inside its frame (normalized device coordinates within [-1, 1]).
  function figureInView(state, view) {
    const v = state.viewer;
    v.orbit.apply();
    v.camera.updateMatrixWorld();
    let shown = 0, total = 0;
    const hidden = [];
    for (const p of v.body) {
      pointAt(state.decoded.after, view.pointCount, state.frame, p, tmp.a);
      if (!Number.isFinite(tmp.a.x)) continue;
      ++total;
      const ahead = tmp.b.copy(tmp.a).applyMatrix4(v.camera.matrixWorldInverse).z < -v.camera.near;
      tmp.a.project(v.camera);
      if (ahead && Math.abs(tmp.a.x) <= 1 && Math.abs(tmp.a.y) <= 1) ++shown;
      else hidden.push(view.jointNames[p]);
    }
    return { shown, total, hidden, height: v.height, distance: v.orbit.distance };
  }

  function installHook(state, view) {
    window.ikfixViewer = {
      frameCount: view.frames,
      jointNames: view.jointNames.slice(),
      get frame() { return state.frame; },
      setFrame(i) { state.setFrame(i); drawNow(state, view); },
      jointPosition: state.jointPosition,
      firstFrameMs: state.firstFrameMs,
      figureInView: () => figureInView(state, view),
    };
  }

  async function main() {
    const marks = { start: performance.now() };
    const data = JSON.parse(document.getElementById('ikfix-data').textContent);
    document.title = 'ikfix · ' + data.title;
    marks.parsed = performance.now();
    const decoded = await loadFigures(data.view);
    const seriesReady = loadSeries(data.view.series);  // after: its streams would delay the terrain's
    marks.decoded = performance.now();
    const state = makeState(data.view, decoded);
    state.decoded = decoded;
    layout(data, state, decoded);
    marks.laid_out = performance.now();
    state.snap = true;
    drawNow(state, data.view);
    state.firstFrameMs = marks.drawn = performance.now();
    window.ikfixMarks = marks;
    await finishPage(data, state, seriesReady);
    marks.finished = performance.now();
    installHook(state, data.view);
    document.addEventListener('keydown', (e) => {
      if (e.target.tagName === 'INPUT' && e.target.type !== 'range') return;
      if (e.code === 'Space') { e.preventDefault(); state.togglePlay(); }
      if (e.code === 'ArrowRight') state.setFrame(state.frame + 1);
      if (e.code === 'ArrowLeft') state.setFrame(state.frame - 1);
    });
    loop(state, data.view, decoded);
  }

  main().catch((e) => { console.error('ikfix viewer: ' + (e && e.stack || e)); });
})();
