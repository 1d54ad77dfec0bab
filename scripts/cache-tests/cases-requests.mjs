// What the request asks of the cache, and what the cache does beyond a plain reuse: conditional requests
// it receives and sends (RFC 9111 §4.3), request directives (§5.2.1), serving stale (§4.2.4, RFC 5861),
// ranges (§3.3-3.4), HEAD (§4.3.5) and interim responses (§3), with the public suite's test ids.
import { fresh, becomeStale, once, soon, cached, notCached } from './templates.mjs'

const cases = []
const add = (id, test) => cases.push({ id, ...test })
const withFresh = (extra) => fresh({ response_headers: [...fresh().response_headers, ...extra], setup: true })

// A conditional request the cache can answer from a fresh stored response (§4.3.2): a 304 when it matches.
const answer304 = (id, etag, inm, extra = {}) => add(id, {
  requests: [withFresh([['ETag', etag]]), { request_headers: [['If-None-Match', inm]], ...cached, expected_status: 304, ...extra }]
})
answer304('conditional-etag-strong-respond', '"abcdef"', '"abcdef"')
answer304('conditional-304-etag', '"abcdef"', '"abcdef"', { expected_response_headers: [['ETag', '"abcdef"']] })
answer304('conditional-etag-weak-respond', 'W/"abcdef"', 'W/"abcdef"')
answer304('conditional-etag-strong-respond-multiple-first', '"abcdef"', '"abcdef", "1234", "5678"')
answer304('conditional-etag-strong-respond-multiple-second', '"abcdef"', '"1234", "abcdef", "5678"')
answer304('conditional-etag-strong-respond-multiple-last', '"abcdef"', '"1234", "5678", "abcdef"')
answer304('conditional-etag-quoted-respond-unquoted', '"abcdef"', 'abcdef')
answer304('conditional-etag-unquoted-respond-unquoted', 'abcdef', 'abcdef')
answer304('conditional-etag-unquoted-respond-quoted', 'abcdef', '"abcdef"')
answer304('conditional-etag-weak-respond-lowercase', 'w/"abcdef"', 'w/"abcdef"')
answer304('conditional-etag-weak-respond-backslash', 'W\\"abcdef"', 'W\\"abcdef"')
answer304('conditional-etag-weak-respond-omit-slash', 'W"abcdef"', 'W"abcdef"')
answer304('conditional-etag-strong-respond-obs-text', '"abcdefü"', '"abcdefü"', { expected_response_headers: [['ETag', '"abcdefü"']] })
add('conditional-etag-precedence', {
  requests: [withFresh([['Last-Modified', -5000], ['ETag', '"abcdef"']]),
    { request_headers: [['If-None-Match', '"abcdef"'], ['If-Modified-Since', -1]], ...cached, expected_status: 304 }]
})
// A stored response that no longer matches is sent whole.
add('conditional-etag-changed', {
  requests: [withFresh([['ETag', '"abcdef"']]), { request_headers: [['If-None-Match', '"other"']], ...cached, expected_status: 200 }]
})
add('conditional-lm-fresh', once([['Cache-Control', 'max-age=100000'], ['Last-Modified', -3000], ['Date', 0]],
  { request_headers: [['If-Modified-Since', -3000]], ...cached, expected_status: 304 }))
add('conditional-lm-fresh-earlier', once([['Cache-Control', 'max-age=100000'], ['Last-Modified', -3000], ['Date', 0]],
  { request_headers: [['If-Modified-Since', -2000]], ...cached, expected_status: 304 }))
add('conditional-lm-stale', once([['Cache-Control', 'max-age=2'], ['Last-Modified', -3000], ['Date', 0]],
  { request_headers: [['If-Modified-Since', -3000]], expected_type: 'lm_validated', expected_status: 304 }))

// Conditional requests the cache sends for a stale stored response (§4.3.1).
add('conditional-etag-strong-generate', { requests: [becomeStale({ response_headers: [['ETag', '"abcdef"']] }), { expected_request_headers: [['If-None-Match', '"abcdef"']], expected_type: 'etag_validated' }] })
add('conditional-etag-weak-generate-weak', { requests: [becomeStale({ response_headers: [['ETag', 'W/"abcdef"']] }), { expected_request_headers: [['If-None-Match', 'W/"abcdef"']], expected_type: 'etag_validated' }] })
add('conditional-etag-vary-headers', {
  requests: [{ request_headers: [['Abc', '123']], response_headers: [['Expires', 1], ['ETag', '"abcdef"'], ['Date', 0], ['Vary', 'Abc']], setup: true, pause_after: true },
    { request_headers: [['Abc', '123']], expected_type: 'etag_validated', expected_request_headers: [['Abc', '123']] }]
})
// A stored variant that does not match may still lend its validator (§4.3.1 allows it; the suite asks).
add('conditional-etag-vary-headers-mismatch', {
  requests: [{ request_headers: [['Abc', '123']], response_headers: [['Expires', 10000], ['ETag', '"abcdef"'], ['Date', 0], ['Vary', 'Abc']], setup: true, pause_after: true },
    { request_headers: [['Abc', '456']], expected_request_headers: [['If-None-Match', '"abcdef"']] }]
})
add('conditional-etag-forward', { requests: [{ request_headers: [['If-None-Match', '"abcdef"']], expected_request_headers: [['If-None-Match', '"abcdef"']] }] })
add('cc-resp-immutable-stale', { requests: [{ response_headers: [['Cache-Control', 'max-age=2, immutable'], ['ETag', '"abcd"']], setup: true, pause_after: true }, { expected_type: 'etag_validated' }] })

// Request directives (§5.2.1): a private cache heeds what its own user asks for.
const ccReq = (id, setup, cc, second) => add(id, soon(setup, { request_headers: [['Cache-Control', cc]], ...second }))
add('ccreq-ma0', { requests: [fresh({ setup: true, pause_after: true }), { request_headers: [['Cache-Control', 'max-age=0']], ...notCached }] })
add('ccreq-ma1', { requests: [fresh({ setup: true, pause_after: true }), { request_headers: [['Cache-Control', 'max-age=1']], ...notCached }] })
ccReq('ccreq-magreaterage', [['Cache-Control', 'max-age=3600'], ['Age', '1800']], 'max-age=600', notCached)
add('ccreq-max-stale', once([['Cache-Control', 'max-age=1']], { request_headers: [['Cache-Control', 'max-stale=1000']], ...cached }))
ccReq('ccreq-max-stale-age', [['Cache-Control', 'max-age=1500'], ['Age', '2000']], 'max-stale=1000', cached)
ccReq('ccreq-min-fresh', [['Cache-Control', 'max-age=1500']], 'min-fresh=2000', notCached)
ccReq('ccreq-min-fresh-age', [['Cache-Control', 'max-age=1500'], ['Age', '1000']], 'min-fresh=1000', notCached)
ccReq('ccreq-no-cache', [['Cache-Control', 'max-age=3600']], 'no-cache', notCached)
ccReq('ccreq-no-cache-lm', [['Cache-Control', 'max-age=3600'], ['Last-Modified', -10000], ['Date', 0]], 'no-cache', { expected_type: 'lm_validated' })
ccReq('ccreq-no-cache-etag', [['Cache-Control', 'max-age=3600'], ['ETag', '"abc"']], 'no-cache', { expected_type: 'etag_validated' })
ccReq('ccreq-no-store', [['Cache-Control', 'max-age=3600']], 'no-store', notCached)
add('ccreq-oic', { requests: [{ request_headers: [['Cache-Control', 'only-if-cached']], expected_status: 504, expected_response_text: null }] })

// Pragma is deprecated (RFC 9111 §5.4): neither a request's nor a response's changes anything.
add('pragma-request-no-cache', soon([['Cache-Control', 'max-age=3600']], { request_headers: [['Pragma', 'no-cache']], ...cached }))
add('pragma-request-extension', soon([['Cache-Control', 'max-age=3600']], { request_headers: [['Pragma', 'unrecognised-extension']], ...cached }))
add('pragma-response-no-cache', soon([['Cache-Control', 'max-age=3600'], ['Pragma', 'no-cache']], cached))
add('pragma-response-no-cache-heuristic', soon([['Date', 0], ['Last-Modified', -10000], ['Pragma', 'no-cache']], cached))
add('pragma-response-extension', soon([['Cache-Control', 'max-age=3600'], ['Pragma', 'unrecognised-extension']], cached))

// Serving stale (§4.2.4) when the origin fails, and stale-while-revalidate (RFC 5861 §3).
add('stale-close', { requests: [becomeStale(), { disconnect: true, ...cached }] })
add('stale-503', { requests: [becomeStale(), { response_status: [503, 'Service Unavailable'], expected_status: 200, ...cached }] })
add('stale-sie-close', once([['Cache-Control', 'max-age=2, stale-if-error=60']], { disconnect: true, ...cached }))
add('stale-sie-503', once([['Cache-Control', 'max-age=2, stale-if-error=60']], { disconnect: true, ...cached }))
add('stale-while-revalidate', once([['Cache-Control', 'max-age=1, stale-while-revalidate=3600'], ['ETag', '"abc"']], cached))
add('stale-while-revalidate-window', {
  requests: [{ response_headers: [['Cache-Control', 'max-age=1, stale-while-revalidate=4'], ['ETag', '"abc"']], setup: true, pause_after: true },
    { response_headers: [['Cache-Control', 'no-cache'], ['ETag', '"def"']], setup: true, pause_after: true },
    { ...notCached }]
})

// Ranges (§3.3, §3.4): a stored part never answers a whole request; what the cache holds answers a range.
const whole = (body, extra = []) => ({ response_headers: [['Cache-Control', 'max-age=3600'], ...extra], response_body: body, setup: true })
const part = () => ({ request_headers: [['Range', 'bytes=-5']], response_status: [206, 'Partial Content'], response_headers: [['Cache-Control', 'max-age=3600'], ['Content-Range', 'bytes 4-9/10']], response_body: '01234', setup: true })
const rangeFromCache = (range, text) => ({ request_headers: [['Range', range]], ...cached, expected_status: 206, expected_response_text: text })
add('partial-store-complete-reuse-partial', { requests: [whole('01234567890'), rangeFromCache('bytes=0-1', '01')] })
add('partial-store-complete-reuse-partial-no-last', { requests: [whole('01234567890'), rangeFromCache('bytes=1-', '1234567890')] })
add('partial-store-complete-reuse-partial-suffix', { requests: [whole('0123456789A'), rangeFromCache('bytes=-1', 'A')] })
add('partial-store-partial-reuse-partial', { requests: [part(), rangeFromCache('bytes=-5', '01234')] })
add('partial-store-partial-reuse-partial-byterange', { requests: [part(), rangeFromCache('bytes=6-8', '234')] })
add('partial-store-partial-reuse-partial-absent', { requests: [part(), rangeFromCache('bytes=6-', '234')] })
add('partial-store-partial-reuse-partial-suffix', { requests: [part(), rangeFromCache('bytes=-1', '4')] })
add('partial-store-partial-complete', {
  requests: [{ ...part(), response_headers: [['Cache-Control', 'max-age=3600'], ['Content-Range', 'bytes 0-4/10']] }, { expected_request_headers: [['range', 'bytes=5-']] }]
})
add('partial-use-headers', { requests: [whole('01234567890', [['A', '1']]), { ...rangeFromCache('bytes=0-1', '01'), response_headers: [['A', '2']] }] })
add('partial-use-stored-headers', { requests: [whole('01234567890', [['A', '1']]), { ...rangeFromCache('bytes=0-1', '01'), expected_response_headers: [['A', '1']] }] })

// HEAD (§4.3.5, §9.3.2 of RFC 9110): a HEAD for a stale entry goes to the origin as HEAD.
add('head-writethrough', { requests: [becomeStale(), { request_method: 'HEAD', expected_method: 'HEAD', expected_response_text: null }] })
add('head-200-retain', { requests: [becomeStale(), { request_method: 'HEAD', expected_method: 'HEAD', expected_response_text: null, expected_response_headers: [['Template-A', '1']] }] })
add('head-200-freshness-update', { requests: [becomeStale(), { request_method: 'HEAD', expected_method: 'HEAD', expected_response_text: null, response_headers: [['Cache-Control', 'max-age=1000']] }, cached] })
add('head-200-update', { requests: [becomeStale(), { request_method: 'HEAD', expected_method: 'HEAD', expected_response_text: null, response_headers: [['Template-A', '2'], ['Cache-Control', 'max-age=1000']] }, { ...cached, expected_response_headers: [['Template-A', '2']] }] })

// Interim (1xx) responses are not final: the final response is the one stored (RFC 9111 §3).
const interim = (id, codes, extra = {}) => add(id, {
  requests: [{ interim_responses: codes, response_headers: [['Cache-Control', 'max-age=100000'], ['Date', 0]], setup: true, pause_after: true }, { ...cached, ...extra }]
})
interim('interim-102', [[102]])
interim('interim-103', [[103]])
interim('interim-not-cached', [[103]])
interim('interim-no-header-reuse', [[103]], { expected_response_headers_missing: ['x-my-header'] })

export default cases
