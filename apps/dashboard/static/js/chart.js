// A hand-written SVG bar chart (no library): each bar is the calls of one day or hour, split
// into answered without error and errors, with the requests refused before an answer (401/403)
// stacked on top. The table under it carries the same numbers.
import { count, refusedOf } from './dom.js'

const svgNs = 'http://www.w3.org/2000/svg'

function s(tag, attrs = {}, text) {
  const el = document.createElementNS(svgNs, tag)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v))
  if (text !== undefined) el.textContent = text
  return el
}

/**
 * @param {{ title: string, points: {at: string, requests: number, errors: number, refusedRevoked: number, refusedNetwork: number, refusedOrigin: number, refusedUserAgent: number, refusedSecret: number}[], label: (at: string) => string }} options
 * @returns {SVGSVGElement}
 */
export function barChart({ title, points, label }) {
  const width = 640
  const height = 220
  const left = 48
  const bottom = 30
  const top = 12
  // Note: a "nice" top (2, 4, 10, 20, 40, 100 …) keeps the three axis labels distinct whole numbers.
  const peak = Math.max(1, ...points.map((p) => p.requests + refusedOf(p)))
  const magnitude = 10 ** Math.floor(Math.log10(peak))
  const max = [1, 2, 4, 10].map((m) => m * magnitude).find((m) => m >= peak && m % 2 === 0) ?? 20 * magnitude
  const plotH = height - top - bottom
  const slot = (width - left - 8) / points.length
  const barW = Math.max(2, slot * 0.7)
  const total = points.reduce((n, p) => n + p.requests, 0)
  const errors = points.reduce((n, p) => n + p.errors, 0)
  const refused = points.reduce((n, p) => n + refusedOf(p), 0)
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'chart', preserveAspectRatio: 'none' })
  svg.append(s('title', {}, `${title}: ${count(total)} calls, ${count(errors)} errors, ${count(refused)} refused (details in the table below)`))
  for (const fraction of [0, 0.5, 1]) {
    const y = top + plotH * (1 - fraction)
    svg.append(s('line', { x1: left, x2: width - 4, y1: y, y2: y, class: 'grid' }))
    svg.append(s('text', { x: left - 6, y: y + 4, 'text-anchor': 'end', class: 'axis' }, count(max * fraction)))
  }
  points.forEach((p, i) => {
    const x = left + i * slot + (slot - barW) / 2
    const okH = (plotH * (p.requests - p.errors)) / max
    const errH = (plotH * p.errors) / max
    const refusedH = (plotH * refusedOf(p)) / max
    const base = top + plotH
    if (okH > 0) svg.append(s('rect', { x, y: base - okH, width: barW, height: okH, class: 'ok' }))
    if (errH > 0) svg.append(s('rect', { x, y: base - okH - errH, width: barW, height: errH, class: 'err' }))
    if (refusedH > 0) svg.append(s('rect', { x, y: base - okH - errH - refusedH, width: barW, height: refusedH, class: 'refused' }))
    // Note: the first and last labels are anchored inwards so they are never cut at the edges.
    const anchor = i === 0 ? 'start' : i === points.length - 1 ? 'end' : 'middle'
    const at = i === 0 ? x : i === points.length - 1 ? x + barW : x + barW / 2
    if (i === 0 || i === points.length - 1 || i === Math.floor(points.length / 2))
      svg.append(s('text', { x: at, y: height - 6, 'text-anchor': anchor, class: 'axis' }, label(p.at)))
  })
  return svg
}
