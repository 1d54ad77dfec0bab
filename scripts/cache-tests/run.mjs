#!/usr/bin/env node
// Replays cases.mjs against `trove fetch` as a new user runs it: one process per request, a fresh cache
// directory per case, and an origin on loopback (started here) that answers each request as the case says
// and records what reached it. Prints one line per case and a closing count.
//
//   node scripts/cache-tests/run.mjs [--trove PATH] [--only id,id] [--verbose]
//
// PATH defaults to .build/debug/trove. The exit code is 0 however many fail: this measures, it does not gate.
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import cases from './cases.mjs'

const args = process.argv.slice(2)
const option = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined }
const trove = option('--trove') ?? '.build/debug/trove'
const only = option('--only')?.split(',')
const verbose = args.includes('--verbose')
const dateHeaders = new Set(['date', 'expires', 'last-modified', 'if-modified-since'])
const httpDate = (base, offset) => new Date(base + offset * 1000).toUTCString()
const pause = () => new Promise((resolve) => setTimeout(resolve, 3000))

// The origin: /<uuid>/<file> answers with the case's request number `Req-Num` names.
const running = new Map()
const server = http.createServer((req, res) => {
  const [, uuid] = req.url.split('/')
  const test = running.get(uuid)
  let body = ''
  req.on('data', (chunk) => { body += chunk })
  req.on('end', () => {
    if (!test) { res.writeHead(404); res.end(); return }
    const number = parseInt(req.headers['req-num'])
    const config = test.requests[number - 1] ?? {}
    test.seen.push({ number, method: req.method, headers: req.headers, body })
    if (config.disconnect) { req.socket.destroy(); return }
    const conditional = req.headers['if-none-match'] || req.headers['if-modified-since']
    const validates = ['etag_validated', 'lm_validated'].includes(config.expected_type)
    const status = conditional && validates ? 304 : (config.response_status?.[0] ?? 200)
    const headers = [['Server-Request-Count', String(test.seen.length)]]
    for (const [name, value] of config.response_headers ?? []) {
      // magic_locations: an empty Content-Location names the requested URL itself.
      const location = config.magic_locations && value === '' ? `${origin}${req.url}` : value
      headers.push([name, dateHeaders.has(name.toLowerCase()) && Number.isInteger(value) ? httpDate(config.now, value) : location])
    }
    // Interim responses before the final one: 102 Processing, 103 Early Hints (with a field of its own).
    for (const [code] of config.interim_responses ?? []) {
      if (code === 102) res.writeProcessing()
      else res.writeEarlyHints({ link: '</styles.css>; rel=preload; as=style', 'x-my-header': 'test' })
    }
    if (!headers.some(([name]) => name.toLowerCase() === 'content-type')) headers.push(['Content-Type', 'text/plain'])
    const text = status === 304 || status === 204 ? '' : (config.response_body === null ? '' : config.response_body ?? uuid)
    res.writeHead(status, headers.flat())
    res.end(text ?? '')
  })
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const origin = `http://127.0.0.1:${server.address().port}`

function fetchWithTrove (url, config, number, cacheDir, work) {
  const bodyOut = path.join(work, `body-${number}`)
  const argv = ['fetch', url, '--json', '-o', bodyOut, '--cache-dir', cacheDir, '--header', `Req-Num: ${number}`]
  for (const [name, value] of config.request_headers ?? []) {
    argv.push('--header', `${name}: ${dateHeaders.has(name.toLowerCase()) && Number.isInteger(value) ? httpDate(config.now, value) : value}`)
  }
  if (config.request_method) argv.push('--method', config.request_method)
  if (config.request_body !== undefined) {
    const file = path.join(work, `request-${number}`)
    fs.writeFileSync(file, config.request_body)
    argv.push('--body', file)
  }
  return new Promise((resolve) => {
    execFile(trove, argv, { timeout: 60000 }, (_error, stdout, stderr) => {
      const line = JSON.parse(stdout.split('\n').find((l) => l.startsWith('{')) ?? '{}')
      const headers = new Map()
      for (const [name, value] of line.headers ?? []) {
        const key = name.toLowerCase()
        headers.set(key, headers.has(key) ? `${headers.get(key)}, ${value}` : value)
      }
      const body = fs.existsSync(bodyOut) ? fs.readFileSync(bodyOut, 'utf8') : null
      // A build without `httpStatus` says only ok or failed (with "HTTP 404" in a failure's message).
      const status = line.httpStatus ?? (line.status === 'ok' ? 200 : parseInt(/HTTP (\d{3})/.exec(line.error ?? '')?.[1] ?? '0'))
      resolve({ ok: line.status === 'ok', status, source: line.source, headers, body, stderr })
    })
  })
}

function check (test, uuid, config, number, response) {
  const failures = []
  const expect = (ok, message) => { if (!ok) failures.push(`${config.setup ? 'setup: ' : ''}request ${number}: ${message}`) }
  const served = parseInt(response.headers.get('server-request-count'))
  const seen = test.seen.find((s) => s.number === number)
  if (config.expected_type === 'cached') {
    // As the suite judges it: an answer the origin made for an earlier request (a 304 counts as new). A
    // failure reports no fields to judge by: then the origin must not have been asked.
    expect(Number.isNaN(served) ? !seen && response.source !== 'network' : served < number, 'does not come from the cache')
  }
  if (config.expected_type === 'not_cached') expect(seen, 'comes from the cache')
  if (config.expected_method) expect(seen?.method === config.expected_method, `reached the origin as ${seen?.method ?? 'nothing'}, not ${config.expected_method}`)
  for (const [name, value] of config.expected_request_headers ?? []) {
    const sent = seen?.headers[name.toLowerCase()]
    expect(sent === value, `the origin got ${name} "${sent}", not "${value}"`)
  }
  if (config.expected_type === 'etag_validated') expect(test.seen.some((s) => s.number === number && s.headers['if-none-match']), 'was not validated with If-None-Match')
  if (config.expected_type === 'lm_validated') expect(test.seen.some((s) => s.number === number && s.headers['if-modified-since']), 'was not validated with If-Modified-Since')
  const status = config.expected_status ?? config.response_status?.[0] ?? 200
  expect(response.status === status, `status is ${response.status}, not ${status}`)
  for (const header of config.expected_response_headers ?? []) {
    if (typeof header === 'string') { expect(response.headers.has(header.toLowerCase()), `${header} missing`); continue }
    const value = response.headers.get(header[0].toLowerCase())
    if (header[1] === '>') { expect(parseInt(value) > header[2], `${header[0]} is ${value}, not over ${header[2]}`); continue }
    // A date the answer should carry counts from the moment of the request the origin made it for.
    const madeFor = test.seen[served - 1]?.number
    const base = test.requests[(madeFor ?? number) - 1].now
    const wanted = dateHeaders.has(header[0].toLowerCase()) && Number.isInteger(header[1]) ? httpDate(base, header[1]) : header[1]
    expect(value === wanted, `${header[0]} is "${value}", not "${wanted}"`)
  }
  for (const header of config.expected_response_headers_missing ?? []) {
    const [name, value] = typeof header === 'string' ? [header, undefined] : header
    const present = response.headers.get(name.toLowerCase())
    expect(present === undefined || (value !== undefined && present !== value), `${name} is present ("${present}")`)
  }
  if (response.ok && ![204, 304, 0].includes(status)) {
    const text = config.expected_response_text !== undefined ? config.expected_response_text : config.response_body ?? uuid
    if (text !== null) expect(response.body === text, `body is "${response.body}", not "${text}"`)
  }
  return failures
}

let passed = 0
const failed = []
for (const test of cases.filter((t) => !only || only.includes(t.id))) {
  const uuid = randomUUID()
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-cache-test-'))
  const requests = test.requests.map((r) => ({ ...r }))
  const state = { requests, seen: [] }
  running.set(uuid, state)
  const failures = []
  for (let i = 0; i < requests.length; i++) {
    // A request's dates count from the moment it is sent (the origin's clock as it answers it).
    requests[i].now = Date.now()
    const url = `${origin}/${uuid}/${requests[i].filename ?? 'test'}${requests[i].query_arg ? `?${requests[i].query_arg}` : ''}`
    const response = await fetchWithTrove(url, requests[i], i + 1, path.join(work, 'cache'), work)
    failures.push(...check(state, uuid, requests[i], i + 1, response))
    if (verbose) console.log(`  ${test.id} #${i + 1}: ${response.status} ${response.source ?? response.stderr.trim()}`)
    if (requests[i].pause_after) await pause()
  }
  running.delete(uuid)
  fs.rmSync(work, { recursive: true, force: true })
  if (failures.length === 0) passed++
  else failed.push(test.id)
  console.log(`${failures.length === 0 ? 'PASS' : 'FAIL'} ${test.id}${failures.length ? `: ${failures.join('; ')}` : ''}`)
}
server.close()
console.log(`cache-tests: ${passed} passed, ${failed.length} failed`)
