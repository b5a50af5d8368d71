// The energy panel of a device: a battery gauge (percent, the average current of the last energy
// record, the time a battery lasts at that draw), a stacked chart of the current by part over the
// run, its legend, and the run's summary when the run ends. Drawn on a canvas by hand (no chart
// library: uPlot stacks nothing, and a few hundred rectangles are cheap), only when a record
// arrived since the last frame.
import { EnergyModel, formatCurrent, formatHours, formatPercent, formatWorldTime, partColour } from './energyModel';
import { el } from './page';

const CHART_W = 300;
const CHART_H = 110;
/** Room for the current axis's label on the left and the time axis's below. */
const LEFT = 4;
const BOTTOM = 13;
const TOP = 12;

export class EnergyView {
  readonly root: HTMLElement;
  readonly model: EnergyModel;
  private drawn = -1;
  private readonly gauge: HTMLElement;
  private readonly fill: HTMLElement;
  private readonly text: HTMLElement;
  private readonly chart: HTMLCanvasElement;
  private readonly legend: HTMLElement;
  private readonly summary: HTMLElement;

  constructor(index: number, startPercent: number, capacityMah: number, periodMs: number) {
    this.model = new EnergyModel(startPercent, capacityMah);
    this.fill = el('div', { class: 'gauge-fill' });
    this.text = el('span', { class: 'gauge-text', id: `gauge-text-${index}` });
    this.gauge = el('div', { class: 'gauge', id: `gauge-${index}` }, el('div', { class: 'gauge-cell' }, this.fill), this.text);
    this.chart = el('canvas', { class: 'energy-chart', id: `energy-chart-${index}`, width: String(CHART_W), height: String(CHART_H), 'data-parts': '', 'data-points': '0' });
    this.legend = el('div', { class: 'energy-legend', id: `energy-legend-${index}` });
    this.summary = el('div', { class: 'energy-summary', id: `energy-summary-${index}` });
    this.root = el('fieldset', { class: 'energy', id: `energy-${index}` }, el('legend', {}, 'energy'), this.gauge, this.chart, this.legend, this.summary);
    this.chart.title = `current by part; a record every ${formatWorldTime(periodMs)} of device time (or when the device next counts its draw)`;
    this.flush();
  }

  /** Take an energy record of the device (drawn at the next frame); false for any other. */
  add(r: { ev: string; [k: string]: unknown }): boolean {
    return this.model.add(r);
  }

  flush(): void {
    if (this.model.version === this.drawn) return;
    this.drawn = this.model.version;
    this.drawGauge();
    this.drawChart();
    this.drawSummary();
  }

  private drawGauge(): void {
    const m = this.model;
    const p = Math.max(0, Math.min(100, m.percent));
    this.gauge.dataset.percent = String(m.percent);
    this.fill.style.width = `${p}%`;
    this.fill.style.background = p > 50 ? '#3cb44b' : p > 20 ? '#f5a231' : '#e6194b';
    const parts = [`battery ${formatPercent(m.percent)} %`];
    if (m.avgMa === undefined) {
      parts.push('no energy record yet');
      delete this.gauge.dataset.avgMa;
    } else {
      this.gauge.dataset.avgMa = String(m.avgMa);
      parts.push(formatCurrent(m.avgMa));
      const h = m.hoursLeft();
      if (h !== undefined) parts.push(`≈ ${formatHours(h)} left at this draw`);
      this.gauge.title = `the average current from ${formatWorldTime(m.lastFrom)} to ${formatWorldTime(m.lastT)} of device time`;
    }
    this.text.textContent = parts.join(' · ');
  }

  /** The buckets as stacked steps over device time, the largest part at the bottom. */
  private drawChart(): void {
    const m = this.model;
    const c = this.chart;
    const g = c.getContext('2d');
    const parts = m.parts();
    c.dataset.parts = parts.map((p) => p.part).join(',');
    c.dataset.points = String(m.buckets.length);
    this.legend.replaceChildren(
      ...parts.map((p) => el('span', { class: 'part', 'data-part': p.part }, el('i', { style: `background:${partColour(p.part)}` }), `${p.part} ${formatCurrent(p.ma)}`)),
    );
    if (!g) return;
    g.clearRect(0, 0, c.width, c.height);
    g.fillStyle = '#f7f7f7';
    g.fillRect(0, 0, c.width, c.height);
    g.font = '10px system-ui, sans-serif';
    if (m.buckets.length === 0) {
      g.fillStyle = '#888';
      g.fillText('no energy record yet', 8, 20);
      return;
    }
    const t0 = m.buckets[0].from;
    const t1 = m.buckets[m.buckets.length - 1].t;
    let top = 0;
    for (const b of m.buckets) top = Math.max(top, parts.reduce((s, p) => s + (b.ma[p.part] ?? 0), 0));
    c.dataset.maxMa = String(top);
    const w = c.width - LEFT - 2;
    const h = c.height - BOTTOM - TOP;
    const x = (t: number): number => LEFT + ((t - t0) / Math.max(1, t1 - t0)) * w;
    const y = top > 0 ? h / top : 0;
    for (const b of m.buckets) {
      const x0 = x(b.from);
      // At least a pixel, so a short record still shows.
      const bw = Math.max(1, x(b.t) - x0);
      let base = TOP + h;
      for (const p of parts) {
        const bh = (b.ma[p.part] ?? 0) * y;
        if (bh <= 0) continue;
        g.fillStyle = partColour(p.part);
        g.fillRect(x0, base - bh, bw, bh);
        base -= bh;
      }
    }
    g.fillStyle = '#333';
    g.fillText(`max ${formatCurrent(top)}`, LEFT, 10);
    g.fillText(formatWorldTime(t0), LEFT, c.height - 2);
    const end = formatWorldTime(t1);
    g.fillText(end, c.width - 2 - g.measureText(end).width, c.height - 2);
  }

  /**
   * The run's summary (its "energy-summary" record): the charge against the battery's capacity,
   * the parts that drew most, and the radio's consumers with their settings (the world lists
   * each advertising set and the scanner: what an app changes to draw less).
   */
  private drawSummary(): void {
    const s = this.model.summary;
    if (!s) {
      this.summary.replaceChildren();
      return;
    }
    const mah = (v: number): string => `${Number(v.toPrecision(3))} mAh`;
    const parts = Object.entries(s.partsMah)
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([p, v]) => `${p} ${mah(v)}`);
    const consumers = [...s.consumers]
      .sort((a, b) => b.mah - a.mah)
      .map((c) => {
        const how = [
          c.windowMs !== undefined ? `window ${c.windowMs} ms` : '',
          c.intervalMs !== undefined ? `every ${c.intervalMs} ms` : '',
          c.dbm !== undefined ? `at ${c.dbm} dBm` : '',
        ].filter(Boolean);
        return `${c.part}${c.set !== undefined ? ` set ${c.set}` : ''}${how.length ? ` (${how.join(' ')})` : ''}: ${mah(c.mah)}`;
      });
    this.summary.replaceChildren(
      el('div', {}, `this run: ${mah(s.mah)} of ${s.capacityMah} mAh, average ${formatCurrent(s.avgMa)}`),
      ...(parts.length ? [el('div', { class: 'summary-parts' }, `most: ${parts.join(', ')}`)] : []),
      ...consumers.map((c) => el('div', { class: 'summary-consumer' }, c)),
    );
  }
}
