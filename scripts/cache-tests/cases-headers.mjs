// Which response header fields a cache keeps, and how a 304 updates them (RFC 9111 §3.1, §3.2, §4.3.4),
// with the public suite's test ids (headers-store-*, headers-omit-*, 304-etag-update-response-*).
import { fresh, once, cached } from './templates.mjs'

// Each field: a value to store and one a 304 brings; `hop` for the connection's own (never stored);
// `update`: 'must' (RFC 9111 §3.2 requires it), 'check' (the suite asks), 'never' (Content-Length describes
// the stored body). Content-Encoding, Content-Length and Transfer-Encoding are not sent with made-up values:
// on a real connection they change how the body is read, so the answer would test the client, not the cache.
const fields = [
  ['Test-Header', 'must'], ['X-Test-Header', 'must'], ['Content-Foo', 'must'], ['X-Content-Foo', 'must'],
  ['Cache-Control', 'must', 'max-age=1', 'max-age=3600'],
  ['Content-Location', 'check', '/foo', '/bar'], ['Content-MD5', 'check', 'rL0Y20zC+Fzt72VPzMSk2A==', 'N7UdGUp1E+RbVvZSTy1R8g=='],
  ['Content-Range', 'check'], ['Content-Security-Policy', 'check', "default-src 'self'", "default-src 'self' cdn.example.com"],
  ['Content-Type', 'check', 'text/plain', 'text/plain;charset=utf-8'], ['Clear-Site-Data', 'check', 'cache', 'cookies'],
  ['ETag', 'check', '"abcdef"', '"ghijkl"'], ['Expires', 'check', 'Fri, 01 Jan 2038 01:01:01 GMT', 'Mon, 11 Jan 2038 11:11:11 GMT'],
  ['Public-Key-Pins', 'check'], ['Set-Cookie', 'check', 'a=b', 'a=c'], ['Set-Cookie2', 'check', 'a=b', 'a=c'],
  ['X-Frame-Options', 'check', 'deny', 'sameorigin'], ['X-XSS-Protection', 'check', '1', '1; mode=block'],
  ['Connection', 'hop'], ['Keep-Alive', 'hop'], ['Proxy-Authenticate', 'hop'], ['Proxy-Authentication-Info', 'hop'],
  ['Proxy-Authorization', 'hop'], ['Proxy-Connection', 'hop'], ['TE', 'hop'], ['Upgrade', 'hop']
]

const cases = []
const add = (id, test) => cases.push({ id, ...test })

for (const [name, update, a = `${name}-value-A`, b = `${name}-value-B`] of fields) {
  // Stored with the response, or (a connection's own field) not.
  const value = name === 'Cache-Control' ? b : `${name}-store-value`
  const headers = [['Date', 0], [name, value], ...(name === 'Cache-Control' ? [] : [['Cache-Control', 'max-age=3600']])]
  const kept = update === 'hop' ? { expected_response_headers_missing: [name] } : { expected_response_headers: [[name, value]] }
  add(`headers-store-${name}`, once(headers, { ...cached, ...kept }))
  // The fields cases.mjs already updates from a 304 (by ETag and by Last-Modified) are not repeated here.
  if (update === 'hop' || update === 'must' || name === 'Content-Type') continue
  // Updated by a 304 and kept so (ETag is the validator itself).
  const make = (v) => [['Date', 0], [name, v], ...(name === 'Cache-Control' ? [] : [['Cache-Control', 'max-age=2']]),
    ...(name === 'ETag' ? [] : [['ETag', `"${name}-etag-1"`]])]
  add(`304-etag-update-response-${name}`, {
    requests: [{ response_headers: make(a), setup: true, pause_after: true },
      { response_headers: make(b), expected_type: 'etag_validated', expected_response_headers: [[name, b]] },
      { response_headers: make(b), ...cached, expected_response_headers: [[name, b]] }]
  })
}

// Fields the Connection header names belong to the connection too (RFC 9111 §3.1, RFC 9110 §7.6.1).
add('headers-omit-headers-listed-in-Connection', {
  requests: [fresh({ response_headers: [...fresh().response_headers, ['Connection', 'a, b'], ['a', '1'], ['b', '2'], ['c', '3']], setup: true }),
    { ...cached, expected_response_headers: [['c', '3']], expected_response_headers_missing: ['a', 'b'] }]
})
// no-cache with field names: the response may be reused without those fields (RFC 9111 §5.2.2.4).
add('headers-omit-headers-listed-in-Cache-Control-no-cache-single', once(
  [['Cache-Control', 'no-cache="a"'], ['a', '1'], ['b', '2'], ['Cache-Control', 'max-age=3600'], ['Date', 0]],
  { ...cached, expected_response_headers: [['b', '2']], expected_response_headers_missing: ['a'] }))
add('headers-omit-headers-listed-in-Cache-Control-no-cache', once(
  [['Cache-Control', 'no-cache="a, b"'], ['a', '1'], ['b', '2'], ['c', '3'], ['Cache-Control', 'max-age=3600'], ['Date', 0]],
  { ...cached, expected_response_headers: [['c', '3']], expected_response_headers_missing: ['a', 'b'] }))

export default cases
