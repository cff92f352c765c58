// The stylesheet and script of the `diff --html` page (report_html.hpp). The script reads the JSON
// block #gridcheck-data and draws: the plans (segments and roles), one canvas per buffer per step
// (R phases, then each profile's H-cpu launches), the marker of each profile's first divergent
// element, a hover tooltip and a click inspector. No network, no external asset.

#include "tools/report_html.hpp"

namespace gridcheck::tools {

std::string_view html_page_style() {
  return R"gccss(
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 24px 40px; color: #1d232b; background: #fafbfc; }
header h1 { font-size: 22px; margin: 18px 0 2px; }
.file { color: #5a6572; margin: 0 0 8px; }
h2 { font-size: 18px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; margin-top: 26px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #eef1f4; font-weight: 600; }
tr.verdict-diverge td, tr.verdict-error td { background: #fde8e8; }
tr.verdict-match td { background: #eaf6ec; }
table.first { border: 2px solid #c62828; }
table.first th { background: #fde8e8; }
.ok { color: #1b7a35; font-weight: 600; }
.note { color: #5a6572; font-size: 13px; }
.program { font: 13px/1.45 ui-monospace, "DejaVu Sans Mono", monospace; background: #fff; border: 1px solid #d0d7de; padding: 4px 0; max-width: 1100px; }
.line { white-space: pre; padding: 0 8px 0 0; }
.line .ln { display: inline-block; width: 3.5em; color: #8b949e; text-align: right; padding-right: 10px; user-select: none; }
.line.in-kernel.seg0 { background: #eef4ff; }
.line.in-kernel.seg1 { background: #fff6e5; }
.line.fence { border-bottom: 2px dashed #6e7781; font-weight: 600; }
.line.fence code::after { content: "   \2190 launch boundary"; color: #6e7781; font-weight: normal; }
.line.divergent { background: #ffd4d4 !important; box-shadow: inset 4px 0 0 #c62828; }
.line.divergent code::after { content: "   \2190 divergent"; color: #c62828; font-weight: 600; }
.line.fence.divergent code::after { content: "   \2190 launch boundary, divergent"; }
.plan { margin: 4px 0 12px; }
.plan table td.omit { color: #8b949e; }
.plan pre { background: #fff; border: 1px solid #d0d7de; padding: 6px; font-size: 12px; max-height: 320px; overflow: auto; }
#legend span.sw { display: inline-block; width: 12px; height: 12px; border: 1px solid #999; vertical-align: -2px; margin: 0 4px 0 12px; }
.buffer { margin-bottom: 18px; }
.steps-row { display: flex; align-items: flex-start; gap: 14px; overflow-x: auto; padding: 4px 0 8px; }
.row-label { flex: 0 0 130px; font-weight: 600; padding-top: 4px; }
figure.step { margin: 0; flex: 0 0 auto; }
figure.step figcaption { font-size: 12px; color: #333; margin-top: 3px; }
figure.step figcaption .bad { color: #c62828; font-weight: 600; }
figure.step figcaption .good { color: #1b7a35; font-weight: 600; }
.canvas-wrap { position: relative; display: inline-block; border: 1px solid #b8c0c8; background: #fff; line-height: 0; }
.canvas-wrap canvas { image-rendering: pixelated; cursor: crosshair; }
.divergent-element, .reference-element { position: absolute; box-sizing: border-box; border: 2px solid #000; outline: 2px solid #ffeb3b; pointer-events: none; }
.reference-element { border-style: dashed; outline: none; }
.inspector { position: fixed; right: 16px; bottom: 16px; background: #fff; border: 1px solid #8b949e; box-shadow: 0 2px 10px rgba(0,0,0,.18); padding: 8px 10px; font-size: 12px; max-width: 520px; display: none; }
.inspector table td { font: 11px ui-monospace, monospace; padding: 1px 4px; text-align: right; }
.inspector td.sel { outline: 2px solid #000; }
.inspector td.diff { background: #ffd4d4; }
.inspector .close { float: right; cursor: pointer; color: #5a6572; }
.tooltip { position: fixed; pointer-events: none; background: #1d232b; color: #fff; font-size: 12px; padding: 3px 6px; border-radius: 3px; display: none; white-space: pre; z-index: 10; }
)gccss";
}

std::string_view html_page_script() {
  return R"gcjs(
(function () {
  'use strict';
  const started = performance.now();
  const D = JSON.parse(document.getElementById('gridcheck-data').textContent);
  const cache = new Map();
  function bytes(i) {
    if (i === null || i === undefined) return null;
    let b = cache.get(i);
    if (!b) {
      const blob = D.blobs[i];
      if (typeof blob === 'string') {  // base64
        const s = atob(blob);
        b = new Uint8Array(s.length);
        for (let k = 0; k < s.length; k++) b[k] = s.charCodeAt(k);
      } else {  // {runs: [[first, step, count], ...]} of u32 words (report_html.hpp encode_blob)
        let n = 0;
        for (const r of blob.runs) n += r[2];
        const w = new Uint32Array(n);
        let o = 0;
        for (const r of blob.runs) {
          const first = r[0], step = r[1] | 0;
          for (let k = 0; k < r[2]; k++) w[o++] = (Math.imul(step, k) + first) >>> 0;
        }
        b = new Uint8Array(w.buffer);
      }
      cache.set(i, b);
    }
    return b;
  }
  function words(i) { const b = bytes(i); return b ? new Uint32Array(b.buffer, 0, b.length >> 2) : null; }
  const f32 = new Float32Array(1), w32 = new Uint32Array(f32.buffer), s32 = new Int32Array(f32.buffer);
  function show(type, w) {
    if (w === undefined || w === null) return '\u2014';
    if (type === 'i32') { w32[0] = w; return String(s32[0]); }
    if (type === 'f32') { w32[0] = w; return String(f32[0]); }
    if (type === 'bool') return w ? 'true' : 'false';
    return String(w >>> 0);
  }
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function geometry(n) {
    let cell, cols;
    if (n <= 64) { cell = 34; cols = 16; }
    else if (n <= 1024) { cell = 12; cols = 32; }
    else if (n <= 16384) { cell = 4; cols = 128; }
    else if (n <= 262144) { cell = 2; cols = 512; }
    else { cell = 1; cols = 1024; }
    cols = Math.max(1, Math.min(cols, n));
    const rows = Math.max(1, Math.ceil(n / cols));
    return { cell: cell, cols: cols, rows: rows, w: cols * cell, h: rows * cell };
  }
  const C = {
    same: [222, 233, 224], sameChanged: [86, 158, 104], diff: [243, 160, 160], diffChanged: [206, 32, 41],
    plain: [226, 228, 234], plainChanged: [110, 140, 192], rIdle: [222, 227, 234], rStored: [59, 111, 182]
  };
  // Each element's colour is an index into PALETTE (one byte per element: a million stay cheap).
  const PALETTE = [C.same, C.sameChanged, C.diff, C.diffChanged, C.plain, C.plainChanged, C.rIdle, C.rStored];
  const K = { same: 0, sameChanged: 1, diff: 2, diffChanged: 3, plain: 4, plainChanged: 5, rIdle: 6, rStored: 7 };
  function bit(bits, i) { return bits && (i >> 3) < bits.length ? (bits[i >> 3] >> (i & 7)) & 1 : 0; }

  // One step of one buffer: what it holds and how each element is coloured.
  function stepCells(step) {
    const n = step.cur ? step.cur.length : 0;
    const colour = new Uint8Array(n);
    let differ = 0, first = -1;
    for (let i = 0; i < n; i++) {
      if (step.kind === 'R') { colour[i] = bit(step.stored, i) ? K.rStored : K.rIdle; continue; }
      const changed = !step.prev || i >= step.prev.length || step.prev[i] !== step.cur[i];
      if (!step.ref) { colour[i] = changed ? K.plainChanged : K.plain; continue; }
      const d = i >= step.ref.length || step.ref[i] !== step.cur[i];
      if (d) { differ++; if (first < 0) first = i; }
      colour[i] = d ? (changed ? K.diffChanged : K.diff) : (changed ? K.sameChanged : K.same);
    }
    if (step.ref && step.ref.length > n) { differ += step.ref.length - n; if (first < 0) first = n; }
    return { colour: colour, differ: differ, first: first };
  }

  function draw(canvas, g, step, cells, type) {
    canvas.width = g.w; canvas.height = g.h;
    const ctx = canvas.getContext('2d');
    const img = ctx.createImageData(g.w, g.h);
    const px = img.data;
    const gap = g.cell >= 4 ? 1 : 0;
    const n = cells.colour.length;
    for (let i = 0; i < n; i++) {
      const c = PALETTE[cells.colour[i]];
      const x0 = (i % g.cols) * g.cell, y0 = Math.floor(i / g.cols) * g.cell;
      for (let y = y0; y < y0 + g.cell - gap; y++) {
        let o = (y * g.w + x0) * 4;
        for (let x = 0; x < g.cell - gap; x++, o += 4) { px[o] = c[0]; px[o + 1] = c[1]; px[o + 2] = c[2]; px[o + 3] = 255; }
      }
    }
    ctx.putImageData(img, 0, 0);
    if (g.cell >= 30) {
      ctx.font = '10px ui-monospace, monospace'; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
      for (let i = 0; i < n; i++) {
        const c = PALETTE[cells.colour[i]];
        ctx.fillStyle = (c[0] * 0.3 + c[1] * 0.59 + c[2] * 0.11) < 140 ? '#fff' : '#111';
        let t = show(type, step.cur[i]); if (t.length > 6) t = t.slice(0, 5) + '\u2026';
        ctx.fillText(t, (i % g.cols) * g.cell + g.cell / 2 - 0.5, Math.floor(i / g.cols) * g.cell + g.cell / 2);
      }
    }
  }

  // ----------------------------------------------------------------------------- plans
  const plans = document.getElementById('plans');
  D.splits.forEach(function (s) {
    const div = el('div', { class: 'plan', 'data-profile': s.profile });
    div.appendChild(el('h3', {}, 'profile ' + s.profile + (s.verdict ? ' \u2014 H-cpu ' + s.verdict : '')));
    if (s.plan.error) { div.appendChild(el('pre', {}, s.plan.error)); plans.appendChild(div); return; }
    if (!s.plan.contains_fence) div.appendChild(el('p', { class: 'note' }, 'No fence: the program is dispatched once, unsplit.'));
    s.plan.segments.forEach(function (seg) {
      div.appendChild(el('h3', {}, 'segment ' + seg.index + ' \u2014 inputs: ' + (seg.inputs.join(', ') || 'none') +
        '; outputs: ' + (seg.outputs.join(', ') || 'none') + (seg.let_prefix.length ? '; let prefix: ' + seg.let_prefix.join(', ') : '')));
      const t = el('table', { class: 'roles', 'data-segment': seg.index });
      const head = el('tr');
      ['buffer', 'reads', 'writes', 'role', 'access', 'output', 'live out', 'rule'].forEach(function (h) { head.appendChild(el('th', {}, h)); });
      t.appendChild(head);
      seg.roles.forEach(function (r) {
        const tr = el('tr', { 'data-buffer': r.name });
        const d = r.decision, omit = d.disposition === 'omit';
        [r.name, r.facts.reads ? 'yes' : '', r.facts.writes ? 'yes' : '', d.disposition, d.access || '',
         d.is_output ? 'yes' : '', d.live_out ? 'yes' : '', d.rule].forEach(function (v) {
          tr.appendChild(el('td', omit ? { class: 'omit' } : {}, String(v)));
        });
        t.appendChild(tr);
      });
      div.appendChild(t);
      if (seg.ir) {
        const det = el('details');
        det.appendChild(el('summary', {}, 'segment ' + seg.index + ' as launched (IR)'));
        det.appendChild(el('pre', {}, seg.ir));
        div.appendChild(det);
      }
    });
    plans.appendChild(div);
  });

  // ----------------------------------------------------------------------------- legend
  const legend = document.getElementById('legend');
  function swatch(c, text) {
    const sp = el('span', { class: 'sw' }); sp.style.background = 'rgb(' + c.join(',') + ')';
    legend.appendChild(sp); legend.appendChild(document.createTextNode(text));
  }
  legend.appendChild(el('b', {}, 'Split launches:'));
  swatch(C.same, 'equals R'); swatch(C.sameChanged, 'equals R, changed by this launch');
  swatch(C.diff, 'differs from R'); swatch(C.diffChanged, 'differs, changed by this launch');
  swatch(C.plain, 'not compared'); swatch(C.plainChanged, 'not compared, changed');
  legend.appendChild(el('br')); legend.appendChild(el('b', {}, 'R phases:'));
  swatch(C.rIdle, 'not stored in this phase'); swatch(C.rStored, 'stored in this phase');
  legend.appendChild(el('p', { class: 'note' }, 'A split launch is compared with R\u2019s memory at the matching grid phase ' +
    '(pass \u00b7 segments + segment) when the launches line up with R\u2019s phases. Hover an element for its values; click it for its neighbourhood. ' +
    'A black box marks the first divergent element (dashed: the same element in R).'));
  if (D.steps_left_out > 0) legend.appendChild(el('p', { class: 'note bad' }, D.steps_left_out + ' steps (R phases and launches) were ' +
    'not recorded: the trace keeps the first ones within --max-memory.'));
  if (D.left_out > 0) legend.appendChild(el('p', { class: 'note bad' }, D.left_out + ' buffer images were left out of this page (its size budget); ' +
    'gridcheck diff --dump-launches DIR writes every one.'));

  // ----------------------------------------------------------------------------- grids
  const grids = document.getElementById('grids');
  const tooltip = document.getElementById('tooltip');
  const inspector = document.getElementById('inspector');
  const figures = {};  // key -> {wrap, g, step}

  function lastChange(buffer, s, launch, i) {
    const L = D.splits[s].launches;
    for (let k = launch; k >= 0; k--) {
      const b = L[k].buffers.find(function (x) { return x.name === buffer.name; });
      if (!b) return null;
      const cur = words(b.bytes);
      let prev = null;
      if (k > 0) { const pb = L[k - 1].buffers.find(function (x) { return x.name === buffer.name; }); prev = pb ? words(pb.bytes) : null; }
      else prev = words(buffer.initial);
      if (!cur) return null;
      if (!prev || i >= prev.length || prev[i] !== cur[i]) return k;
    }
    return -1;
  }
  function lastStore(bi, phase, i) {
    for (let k = phase; k >= 0; k--) if (bit(bytes(D.reference[k].buffers[bi].stored), i)) return k;
    return -1;
  }
  function describe(f, i) {
    const st = f.step, type = f.buffer.type;
    let t = f.buffer.name + '[' + i + ']  ' + (st.kind === 'R' ? 'R' : 'split') + ' ' + show(type, st.cur[i]);
    if (st.ref) t += '  R ' + show(type, st.ref[i]) + (st.ref[i] !== st.cur[i] ? '  DIFFERS' : '');
    if (st.kind === 'R') {
      const k = lastStore(f.bi, st.index, i);
      t += '\nlast stored by R in phase ' + (k < 0 ? '\u2014 (caller bytes)' : k);
    } else {
      const k = lastChange(f.buffer, st.split, st.index, i);
      t += '\nlast changed by launch ' + (k === null ? '?' : k < 0 ? '\u2014 (caller bytes)' : k);
    }
    return t;
  }
  function inspect(f, i) {
    inspector.textContent = '';
    const close = el('span', { class: 'close' }, '\u00d7'); close.onclick = function () { inspector.style.display = 'none'; };
    inspector.appendChild(close);
    inspector.appendChild(el('b', {}, f.title));
    inspector.appendChild(el('pre', {}, describe(f, i)));
    const g = f.g, row = Math.floor(i / g.cols), col = i % g.cols, span = 8;
    const c0 = Math.max(0, Math.min(col - span / 2, g.cols - span)), r0 = Math.max(0, row - 3);
    const t = el('table');
    for (let r = r0; r < Math.min(g.rows, r0 + 7); r++) {
      const tr = el('tr');
      tr.appendChild(el('th', {}, String(r * g.cols + c0)));
      for (let c = c0; c < Math.min(g.cols, c0 + span); c++) {
        const j = r * g.cols + c;
        if (j >= f.step.cur.length) { tr.appendChild(el('td')); continue; }
        const cls = (j === i ? 'sel ' : '') + (f.step.ref && f.step.ref[j] !== f.step.cur[j] ? 'diff' : '');
        const td = el('td', { class: cls.trim(), title: f.buffer.name + '[' + j + ']' + (f.step.ref ? ' R ' + show(f.buffer.type, f.step.ref[j]) : '') },
          show(f.buffer.type, f.step.cur[j]));
        tr.appendChild(td);
      }
      t.appendChild(tr);
    }
    inspector.appendChild(t);
    inspector.style.display = 'block';
  }

  function figure(row, key, f, caption) {
    const fig = el('figure', { class: 'step', 'data-step': key });
    const wrap = el('div', { class: 'canvas-wrap' });
    fig.appendChild(wrap);
    const cap = el('figcaption');
    cap.appendChild(document.createTextNode(caption));
    fig.appendChild(cap);
    row.appendChild(fig);
    // One width per buffer (its grid's, at least 240px), so R's phases and the launches line up in columns.
    fig.style.width = Math.max(geometry(f.buffer.count).w + 2, 240) + 'px';
    if (!f.step.cur) { cap.appendChild(el('div', { class: 'bad' }, 'left out of this page')); return; }
    const g = geometry(f.step.cur.length);
    const canvas = el('canvas', { 'data-buffer': f.buffer.name });
    wrap.appendChild(canvas);
    const cells = stepCells(f.step);
    draw(canvas, g, f.step, cells, f.buffer.type);
    f.g = g; f.wrap = wrap; f.cells = cells;
    if (f.step.ref) {
      cap.appendChild(el('br'));
      cap.appendChild(cells.differ ? el('span', { class: 'bad' }, '\u2260 R: ' + cells.differ + ' element' + (cells.differ === 1 ? '' : 's') + ', first at ' + cells.first)
                                   : el('span', { class: 'good' }, '= R'));
    }
    function at(ev) {
      const r = canvas.getBoundingClientRect();
      const x = Math.floor((ev.clientX - r.left) * g.w / r.width / g.cell), y = Math.floor((ev.clientY - r.top) * g.h / r.height / g.cell);
      const i = y * g.cols + x;
      return x >= 0 && x < g.cols && i >= 0 && i < f.step.cur.length ? i : -1;
    }
    canvas.addEventListener('mousemove', function (ev) {
      const i = at(ev);
      if (i < 0) { tooltip.style.display = 'none'; return; }
      tooltip.textContent = describe(f, i);
      tooltip.style.left = (ev.clientX + 14) + 'px'; tooltip.style.top = (ev.clientY + 14) + 'px';
      tooltip.style.display = 'block';
    });
    canvas.addEventListener('mouseleave', function () { tooltip.style.display = 'none'; });
    canvas.addEventListener('click', function (ev) { const i = at(ev); if (i >= 0) inspect(f, i); });
    figures[key] = f;
  }

  D.buffers.forEach(function (buffer, bi) {
    const sec = el('section', { class: 'buffer', id: 'buffer-' + buffer.name, 'data-buffer': buffer.name });
    sec.appendChild(el('h3', {}, buffer.name + ': ' + buffer.type + '[' + buffer.count + ']' + (buffer.line ? '  (declared on line ' + buffer.line + ')' : '')));
    const rrow = el('div', { class: 'steps-row' });
    rrow.appendChild(el('div', { class: 'row-label' }, 'R (true grid sync)'));
    if (!D.reference.length) rrow.appendChild(el('p', { class: 'note' }, 'R did not run the program.'));
    D.reference.forEach(function (p, k) {
      const b = p.buffers[bi];
      const step = { kind: 'R', index: k, cur: words(b.bytes), stored: bytes(b.stored) };
      const f = { buffer: buffer, bi: bi, step: step, title: 'R phase ' + k + ', ' + buffer.name };
      figure(rrow, 'R:' + k + ':' + buffer.name, f, 'phase ' + k + ' (iteration ' + p.iteration + ', phase ' + p.phase + '; ends at ' +
        (p.fence_line ? 'grid_sync, line ' + p.fence_line : 'the end') + ')' + (b.store_lines.length ? '; stores on line ' + b.store_lines.join(', ') : ''));
    });
    sec.appendChild(rrow);
    D.splits.forEach(function (s, si) {
      const row = el('div', { class: 'steps-row', 'data-profile': s.profile });
      row.appendChild(el('div', { class: 'row-label' }, 'H-cpu ' + s.profile + (s.aligned ? '' : ' (not aligned with R\u2019s phases)')));
      if (s.failure) row.appendChild(el('p', { class: 'note bad' }, 'the split failed: ' + s.failure));
      let prev = words(buffer.initial);
      s.launches.forEach(function (l) {
        const b = l.buffers.find(function (x) { return x.name === buffer.name; });
        if (!b) return;
        const cur = words(b.bytes);
        const step = { kind: 'launch', split: si, index: l.index, cur: cur, prev: prev, ref: words(b.reference) };
        prev = cur;
        const f = { buffer: buffer, bi: bi, step: step, title: s.profile + ' launch ' + l.index + ', ' + buffer.name };
        figure(row, s.profile + ':' + l.index + ':' + buffer.name, f, 'launch ' + l.index + ' (pass ' + l.pass +
          (l.segment === null ? ', unsplit' : ', segment ' + l.segment) + ')' + (l.reference_phase === null ? '' : ' vs R phase ' + l.reference_phase));
      });
      if (s.launches.length === 0 && !s.failure) row.appendChild(el('p', { class: 'note' }, 'no launch'));
      sec.appendChild(row);
    });
    grids.appendChild(sec);
  });

  // ----------------------------------------------------------------------------- marks
  function place(f, i, cls, attrs) {
    if (!f || !f.g || i >= f.step.cur.length) return null;
    const g = f.g, size = Math.max(g.cell + 4, 11);
    const m = el('div', Object.assign({ class: cls }, attrs));
    const cx = (i % g.cols) * g.cell + g.cell / 2, cy = Math.floor(i / g.cols) * g.cell + g.cell / 2;
    m.style.left = (cx - size / 2) + 'px'; m.style.top = (cy - size / 2) + 'px';
    m.style.width = size + 'px'; m.style.height = size + 'px';
    f.wrap.appendChild(m);
    return m;
  }
  let firstMark = null;
  D.marks.forEach(function (m, n) {
    const s = D.splits[m.split];
    const buffer = D.buffers.find(function (b) { return b.name === m.buffer; });
    const f = m.launch === null ? null : figures[s.profile + ':' + m.launch + ':' + m.buffer];
    const attrs = { 'data-profile': s.profile, 'data-launch': m.launch, 'data-buffer': m.buffer, 'data-element': m.element };
    if (f) {
      attrs['data-split-value'] = show(buffer ? buffer.type : 'u32', f.step.cur[m.element]);
      if (f.step.ref) attrs['data-reference-value'] = show(buffer ? buffer.type : 'u32', f.step.ref[m.element]);
      // Which split launch last changed the element (-1: it still holds the caller's bytes).
      const k = buffer ? lastChange(buffer, m.split, m.launch, m.element) : null;
      if (k !== null) attrs['data-last-written-launch'] = k;
    }
    if (m.phase !== null && buffer) attrs['data-reference-last-stored-phase'] = lastStore(D.buffers.indexOf(buffer), m.phase, m.element);
    if (n === 0) attrs.id = 'divergent-element';
    const mark = place(f, m.element, 'divergent-element', attrs);
    if (m.phase !== null) place(figures['R:' + m.phase + ':' + m.buffer], m.element, 'reference-element',
      { 'data-phase': m.phase, 'data-buffer': m.buffer, 'data-element': m.element });
    if (n === 0 && mark) firstMark = { f: f, i: m.element };
  });
  if (firstMark) inspect(firstMark.f, firstMark.i);
  document.body.setAttribute('data-render-ms', String(Math.round(performance.now() - started)));
  document.body.setAttribute('data-rendered', 'true');
})();
)gcjs";
}

}  // namespace gridcheck::tools
