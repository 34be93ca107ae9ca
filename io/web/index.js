// ikfix HTML report, batch index: one row per clip, sortable (worst first), filterable, each
// linked to its clip page. Reads #ikfix-data (io/html/html_report.cpp html_index_page).
(function () {
  'use strict';

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'text') node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (const c of children || []) node.append(c);
    return node;
  }

  function metric(clip, which, group, key) {
    const m = ((clip.metrics || {})[which] || {})[group];
    return m ? m[key] : undefined;
  }

  // A clip's badness, for "worst first": failed, then fail-on held, then unreachable frames and
  // shortfall, then warnings.
  function badness(clip) {
    return (clip.status === 'error' ? 1e12 : 0) + (clip.fail_on_held || []).length * 1e9 +
      (clip.unreachable_frames || 0) * 1e3 + (clip.max_shortfall_m || 0) * 100 +
      (clip.warnings || []).length;
  }

  function state(clip) {
    if (clip.status !== 'ok' || (clip.fail_on_held || []).length) return 'failed';
    return (clip.warnings || []).length || clip.unreachable_frames ? 'warned' : 'ok';
  }

  const num = (v, d) => (v === undefined || v === null ? '–' : Number(v).toFixed(d));
  const COLUMNS = [
    { label: 'clip', value: (c) => c.input, cell: (c, page) => page ? el('a', { href: page, text: c.input }) : c.input },
    { label: 'status', value: (c) => state(c), cell: (c) => el('span', { class: 'status', text: c.status + (state(c) !== 'ok' && c.status === 'ok' ? ` (${state(c)})` : '') }) },
    { label: 'frames', num: true, value: (c) => c.frames },
    { label: 'unreachable', num: true, value: (c) => c.unreachable_frames },
    { label: 'shortfall (m)', num: true, value: (c) => c.max_shortfall_m, text: (v) => num(v, 3) },
    { label: 'penetration before (m)', num: true, value: (c) => metric(c, 'before', 'penetration', 'max_m'), text: (v) => num(v, 4) },
    { label: 'penetration after (m)', num: true, value: (c) => metric(c, 'after', 'penetration', 'max_m'), text: (v) => num(v, 4) },
    { label: 'slide before (m/s)', num: true, value: (c) => metric(c, 'before', 'slide', 'max_mps'), text: (v) => num(v, 4) },
    { label: 'slide after (m/s)', num: true, value: (c) => metric(c, 'after', 'slide', 'max_mps'), text: (v) => num(v, 4) },
    { label: 'fail-on held', value: (c) => (c.fail_on_held || []).join(', ') || (c.error || '') },
    { label: 'badness', hidden: true, value: badness },
  ];

  function render(data, tbody, sort, filter) {
    const rows = data.batch.clips.map((c, i) => ({ c, page: data.pages[i] }))
      .filter(({ c }) => filter === 'all' || state(c) === filter || (filter === 'not-ok' && state(c) !== 'ok'));
    const col = COLUMNS[sort.column];
    rows.sort((a, b) => {
      const x = col.value(a.c), y = col.value(b.c);
      const order = x === y ? 0 : (x === undefined ? -1 : y === undefined ? 1 : x < y ? -1 : 1);
      return sort.asc ? order : -order;
    });
    tbody.replaceChildren(...rows.map(({ c, page }) => el('tr', { class: state(c) },
      COLUMNS.filter((k) => !k.hidden).map((k) => {
        const v = k.value(c);
        const content = k.cell ? k.cell(c, page) : (k.text ? k.text(v) : (v === undefined ? '–' : String(v)));
        return el('td', { class: k.num ? 'num' : '' }, [content]);
      }))));
  }

  function main() {
    const data = JSON.parse(document.getElementById('ikfix-data').textContent);
    document.body.classList.add('index');
    const totals = data.batch.totals || {};
    const sort = { column: COLUMNS.length - 1, asc: false };  // worst first
    let filter = 'all';
    const tbody = el('tbody');
    const headRow = el('tr', {}, COLUMNS.filter((k) => !k.hidden).map((k, i) => {
      const th = el('th', { text: k.label });
      th.addEventListener('click', () => {
        sort.asc = sort.column === i ? !sort.asc : false;
        sort.column = i;
        for (const other of headRow.children) other.className = '';
        th.className = 'sorted' + (sort.asc ? ' asc' : '');
        render(data, tbody, sort, filter);
      });
      return th;
    }));
    const select = el('select', { id: 'filter' }, [['all', 'all clips'], ['failed', 'failed'],
      ['warned', 'warned'], ['not-ok', 'failed or warned'], ['ok', 'ok']].map(([v, t]) => el('option', { value: v, text: t })));
    select.addEventListener('change', () => { filter = select.value; render(data, tbody, sort, filter); });
    const app = document.getElementById('app');
    app.append(el('header', {}, [el('h1', { text: data.title }),
      el('span', { class: 'badge', text: `${totals.clips || 0} clips · ${totals.clips_with_unreachable || 0} with unreachable frames · ${totals.clips_fail_on_held || 0} failing --fail-on` })]),
    el('main', {}, [el('div', { class: 'filters' }, [el('label', {}, ['show ', select]),
      el('span', { class: 'muted', text: 'click a column to sort; worst first by default' })]),
    el('table', { class: 'clips' }, [el('thead', {}, [headRow]), tbody])]));
    render(data, tbody, sort, filter);
  }

  main();
})();
