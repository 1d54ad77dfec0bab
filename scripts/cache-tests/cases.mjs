// Test cases for run.mjs: the HTTP-caching behaviours a private client cache must show, written here from
// RFC 9111 and from what the public http-tests/cache-tests suite checks (its test ids are kept, so results
// can be set beside its published ones). Each case is a list of requests, each with what the origin
// answers and what the answer must be. Dates given as numbers are seconds from the moment of the request.
//
// Vocabulary of a request: request_method, request_headers, request_body, filename, query_arg;
// response_status [code, phrase], response_headers, response_body, disconnect (the origin drops the
// connection), interim_responses ([[102], [103]]: sent before the final answer), magic_locations (an empty
// Content-Location names the requested URL); expected_type (cached, not_cached, etag_validated,
// lm_validated), expected_status, expected_response_headers (name | [name, value] | [name, '>', number]),
// expected_response_headers_missing (name | [name, value]), expected_request_headers ([name, value] the
// origin must get), expected_method, expected_response_text, setup, pause_after.
//
// The cases are in three files: this one (freshness, parsing, directives, statuses, Vary, invalidation,
// updates from a 304), cases-headers.mjs (which fields are stored and updated) and cases-requests.mjs
// (conditional requests, request directives, stale answers, ranges, HEAD, interim responses).

import { fresh, stale, once, soon, cached, notCached } from './templates.mjs'
import headerCases from './cases-headers.mjs'
import requestCases from './cases-requests.mjs'

const cases = []
const add = (id, test) => cases.push({ id, ...test })

// Freshness from Cache-Control (RFC 9111 §5.2.2.1, §4.2.1)
add('freshness-max-age', once([['Cache-Control', 'max-age=3600']], cached))
add('freshness-max-age-0', once([['Cache-Control', 'max-age=0']], notCached))
add('freshness-max-age-0-expires', once([['Cache-Control', 'max-age=0'], ['Expires', 3600]], notCached))
add('freshness-max-age-expires', once([['Cache-Control', 'max-age=3600'], ['Expires', -3600]], cached))
add('freshness-max-age-negative', once([['Cache-Control', 'max-age=-3600']], notCached))
add('freshness-max-age-age', once([['Cache-Control', 'max-age=3600'], ['Age', '12000']], notCached))
add('freshness-max-age-max', once([['Cache-Control', 'max-age=2147483648']], cached))
add('freshness-max-age-max-minus-1', once([['Cache-Control', 'max-age=2147483647']], cached))
add('freshness-max-age-max-plus-1', once([['Cache-Control', 'max-age=2147483649']], cached))
add('freshness-max-age-max-plus', once([['Cache-Control', 'max-age=99999999999']], cached))
add('freshness-max-age-stale', once([['Cache-Control', 'max-age=1']], notCached))
add('freshness-max-age-s-maxage-private', once([['Cache-Control', 'max-age=1, s-maxage=3600']], notCached))
add('freshness-max-age-ignore-quoted', once([['Cache-Control', 'extension="max-age=3600", max-age=1']], notCached))
add('freshness-max-age-ignore-quoted-rev', once([['Cache-Control', 'max-age=1, extension="max-age=3600"']], notCached))
add('freshness-max-age-leading-zero', once([['Cache-Control', 'max-age=003600']], cached))
add('freshness-max-age-single-quoted', once([['Cache-Control', "max-age='3600'"]], notCached))
add('freshness-max-age-s-maxage-private-multiple', once([['Cache-Control', 's-maxage=3600'], ['Cache-Control', 'max-age=1']], notCached))
add('freshness-max-age-date', once([['Date', -7200], ['Cache-Control', 'max-age=3600']], notCached))
add('freshness-max-age-expires-invalid', once([['Cache-Control', 'max-age=3600'], ['Expires', '0'], ['Date', 0]], cached))
add('freshness-max-age-extension', once([['Cache-Control', 'foobar, max-age=3600']], cached))
add('freshness-max-age-case-insenstive', once([['Cache-Control', 'MaX-aGe=3600']], cached))
add('freshness-max-age-quoted', once([['Cache-Control', 'max-age="3600"']], cached))
add('freshness-max-age-space-before-equals', once([['Cache-Control', 'max-age =3600']], notCached))
add('freshness-max-age-space-after-equals', once([['Cache-Control', 'max-age= 3600']], notCached))
// Two max-age: the first counts (RFC 9111 §4.2.1 allows the first, or stale). The public suite's checks
// expect reuse in both orders; the stale-first orders cannot be reused under either reading the RFC allows.
add('freshness-max-age-two-fresh-stale-sameline', once([['Cache-Control', 'max-age=1800, max-age=1']], cached))
add('freshness-max-age-two-fresh-stale-sepline', once([['Cache-Control', 'max-age=1800'], ['Cache-Control', 'max-age=1']], cached))
add('freshness-max-age-two-stale-fresh-sameline', once([['Cache-Control', 'max-age=1, max-age=1800']], notCached))
add('freshness-max-age-two-stale-fresh-sepline', once([['Cache-Control', 'max-age=1'], ['Cache-Control', 'max-age=1800']], notCached))
// A max-age that is not delta-seconds makes the response stale (RFC 9111 §4.2.1 encourages it); the public
// suite's checks ask whether these are reused.
for (const [id, value] of [['decimal-zero', '3600.0'], ['decimal-five', '3600.5'], ['a100', 'a3600'], ['100a', '3600a']]) {
  add(`freshness-max-age-${id}`, once([['Cache-Control', `max-age=${value}`]], notCached))
}
// A response with no lifetime and no validator: Trove's default heuristic (the cache lifetime, RFC 9111
// §4.2.2 allows any) keeps it; the public suite's check only asks.
add('freshness-none', once([], cached))

// Freshness from Expires (RFC 9111 §5.3)
add('freshness-expires-future', once([['Expires', 3600], ['Date', 0]], cached))
add('freshness-expires-past', once([['Expires', -3600], ['Date', 0]], notCached))
add('freshness-expires-present', once([['Expires', 0], ['Date', 0]], notCached))
add('freshness-expires-invalid', once([['Expires', '0'], ['Date', 0]], notCached))
add('freshness-expires-invalid-2-digit-year', once([['Expires', 'Thu, 18 Aug 50 02:01:18 GMT'], ['Date', 0]], notCached))
add('freshness-expires-invalid-no-comma', once([['Expires', 'Thu 18 Aug 2050 02:01:18 GMT'], ['Date', 0]], notCached))
add('freshness-expires-invalid-date-dashes', once([['Expires', 'Thu, 18-Aug-2050 02:01:18 GMT'], ['Date', 0]], notCached))
add('freshness-expires-invalid-1-digit-hour', once([['Expires', 'Thu, 18 Aug 2050 2:01:18 GMT'], ['Date', 0]], notCached))
add('freshness-expires-invalid-multiple-lines', once([['Expires', 3600], ['Expires', 3600], ['Date', 0]], notCached))
add('freshness-expires-age-slow-date', soon([['Date', -10], ['Expires', 10], ['Age', '25']], notCached))
add('freshness-expires-age-fast-date', soon([['Date', 10], ['Expires', 20], ['Age', '15']], notCached))
add('freshness-expires-old-date', once([['Expires', 300], ['Date', 400]], notCached))
add('freshness-expires-invalid-date', soon([['Date', 'foo'], ['Expires', 10]], cached))
for (const [id, value] of [['32bit', 'Tue, 19 Jan 2038 14:14:08 GMT'], ['far-future', 'Sun, 21 Nov 2286 04:46:39 GMT'],
  ['rfc850', 'Thursday, 18-Aug-50 02:01:18 GMT'], ['ansi-c', 'Thu Aug  8 02:01:18 2050'],
  ['wrong-case-weekday', 'THU, 18 Aug 2050 02:01:18 GMT'], ['wrong-case-month', 'Thu, 18 AUG 2050 02:01:18 GMT'],
  ['wrong-case-tz', 'Thu, 18 Aug 2050 02:01:18 gMT']]) {
  add(`freshness-expires-${id}`, once([['Expires', value], ['Date', 0]], cached))
}
for (const [id, value] of [['utc', 'Thu, 18 Aug 2050 02:01:18 UTC'], ['aest', 'Thu, 18 Aug 2050 02:01:18 AEST'],
  ['multiple-spaces', 'Thu, 18  Aug  2050 02:01:18 GMT'], ['time-periods', 'Thu, 18 Aug 2050 02.01.18 GMT']]) {
  add(`freshness-expires-invalid-${id}`, once([['Expires', value], ['Date', 0]], notCached))
}

// Age (RFC 9111 §5.1): the first member of a list
add('age-parse-suffix', once([['Date', 0], ['Cache-Control', 'max-age=3600'], ['Age', '7200,0']], notCached))
add('age-parse-list-first', once([['Date', 0], ['Cache-Control', 'max-age=3600'], ['Age', '60, 30']], cached))
const ageCase = (id, ages, second, maxAge = 3600) => add(`age-parse-${id}`, once([['Date', 0], ['Cache-Control', `max-age=${maxAge}`], ...ages.map((a) => ['Age', a])], second))
ageCase('dup-old', ['3600', '3600'], cached, 10000)
// An Age that is not delta-seconds is ignored (RFC 9111 §5.1), parameters included (the suite's checks
// age-parse-parameter and age-parse-numeric-parameter ask the opposite).
ageCase('nonnumeric', ['abc'], cached)
ageCase('negative', ['-7200'], cached)
ageCase('float', ['7200.0'], cached)
ageCase('parameter', ['7200;foo=bar'], cached)
ageCase('numeric-parameter', ['7200;foo=111'], cached)
ageCase('large-minus-one', ['2147483647'], notCached)
ageCase('large', ['2147483648'], notCached)
ageCase('larger', ['2147483649'], notCached)
ageCase('prefix', ['0, 7200'], cached)
ageCase('suffix-twoline', ['7200', '0'], notCached)
ageCase('prefix-twoline', ['0', '7200'], cached)
ageCase('dup-0', ['0, 0'], cached)
ageCase('dup-0-twoline', ['0', '0'], cached)

// Response directives (RFC 9111 §5.2.2)
add('cc-resp-no-store', once([['Cache-Control', 'no-store']], notCached))
add('cc-resp-no-store-case-insensitive', once([['Cache-Control', 'No-Store']], notCached))
add('cc-resp-no-store-fresh', once([['Cache-Control', 'max-age=10000, no-store']], notCached))
add('cc-resp-no-cache', once([['Cache-Control', 'max-age=10000, no-cache'], ['Expires', 10000], ['Date', 0]], notCached))
add('cc-resp-no-cache-revalidate-fresh', once([['Cache-Control', 'max-age=10000, no-cache'], ['Expires', 10000], ['Date', 0], ['ETag', '"abcd"']], { expected_type: 'etag_validated' }))
add('cc-resp-private-private', soon([['Cache-Control', 'private, max-age=3600']], cached))
add('cc-resp-must-revalidate-fresh', soon([['Cache-Control', 'max-age=10000, must-revalidate'], ['ETag', '"abcd"']], cached))
// A newer answer that may not be stored leaves the older fresh copy in use (it is fresh, so the origin is not asked).
for (const [id, cc] of [['cc-resp-no-store-old-new', 'no-store'], ['cc-resp-no-store-old-max-age', 'no-store, max-age=0']]) {
  add(id, {
    requests: [{ response_headers: [['Cache-Control', 'max-age=10000'], ['Expires', 10000], ['Date', 0], ['A', '1']], setup: true, pause_after: true },
      { response_headers: [['Cache-Control', cc], ['Date', 0], ['A', '2']], setup: true, pause_after: true },
      { ...cached, expected_response_headers: [['A', '1']] }]
  })
}
add('cc-resp-no-cache-case-insensitive', once([['Cache-Control', 'No-Cache']], notCached))
add('cc-resp-no-cache-fresh', once([['Cache-Control', 'max-age=10000, no-cache']], notCached))
add('cc-resp-no-cache-revalidate', once([['Cache-Control', 'no-cache'], ['ETag', '"abcd"']], { expected_type: 'etag_validated' }))
add('cc-resp-must-revalidate-stale', {
  requests: [{ response_headers: [['Cache-Control', 'max-age=2, must-revalidate'], ['ETag', '"abcd"']], setup: true },
    { response_headers: [['Cache-Control', 'max-age=2, must-revalidate'], ['ETag', '"abcd"']], ...cached, setup: true, pause_after: true },
    { expected_type: 'etag_validated' }]
})

// A stale copy never stands in for a dropped connection when the response forbade it (§4.2.4, §5.2.2)
for (const [id, cc] of [['stale-close-must-revalidate', 'max-age=1, must-revalidate'], ['stale-close-no-cache', 'no-cache']]) {
  add(id, { requests: [{ response_headers: [['Cache-Control', cc], ['ETag', '"a"']], setup: true, pause_after: true }, { disconnect: true, expected_status: 0 }] })
}

// Heuristic freshness only for heuristically cacheable statuses (RFC 9111 §4.2.2)
for (const [reused, code, phrase, extra] of [[true, 200, 'OK'], [false, 201, 'Created'], [false, 202, 'Accepted'],
  [true, 203, 'Non-Authoritative Information'], [true, 204, 'No Content'], [false, 403, 'Forbidden'], [true, 404, 'Not Found'],
  [true, 405, 'Method Not Allowed'], [true, 410, 'Gone'], [true, 414, 'URI Too Long'], [true, 501, 'Not Implemented'],
  [false, 502, 'Bad Gateway'], [false, 503, 'Service Unavailable'], [false, 504, 'Gateway Timeout'], [false, 599, 'Unknown'],
  [true, 599, 'Unknown', ['Cache-Control', 'public']]]) {
  const answer = { response_status: [code, phrase], response_body: code === 204 ? null : `status ${code}` }
  add(`heuristic-${code}-${reused ? 'cached' : 'not_cached'}`, soon([['Last-Modified', -24 * 60 * 60], ['Date', 0], ...(extra ? [extra] : [])],
    { ...(reused ? cached : notCached), ...answer }, answer))
}
// How old a Last-Modified must be for a heuristic lifetime over the pause: with Trove's default heuristic
// (the cache lifetime), any age; the public suite only asks.
for (const delta of [5, 10, 30, 60, 300, 600, 1200, 1800, 3600, 3600 * 12, 3600 * 24]) {
  add(`heuristic-delta-${delta}`, once([['Last-Modified', -delta], ['Date', 0]], cached))
}

// A stale stored response of any status is not reused (status-*-stale)
for (const [code, phrase, body] of [[200, 'OK'], [203, 'Non-Authoritative Information'], [204, 'No Content', null], [299, 'Whatever'],
  [400, 'Bad Request'], [404, 'Not Found'], [410, 'Gone'], [499, 'Whatever'], [500, 'Internal Server Error'],
  [502, 'Bad Gateway'], [503, 'Service Unavailable'], [504, 'Gateway Timeout'], [599, 'Whatever']]) {
  const answer = { response_status: [code, phrase], response_body: body === undefined ? `status ${code}` : body }
  add(`status-${code}-stale`, { requests: [stale({ ...answer, setup: true }), { ...notCached, ...answer }] })
  add(`status-${code}-fresh`, { requests: [fresh({ ...answer, setup: true }), { ...cached, ...answer }] })
}
// must-understand: no-store yields to a status the cache implements, and only to such (RFC 9111 §5.2.2.3).
add('status-599-must-understand', soon([['Cache-Control', 'max-age=3600, no-store, must-understand']], notCached, { response_status: [599, 'Whatever'] }))
add('status-200-must-understand', soon([['Cache-Control', 'max-age=3600, no-store, must-understand']], cached))

// Vary (RFC 9111 §4.1)
const varyResponse = (vary) => [['Expires', 5000], ['Last-Modified', -3000], ['Date', 0], ...vary.map((v) => ['Vary', v])]
const varyCase = (first, vary, second) => ({ requests: [{ request_headers: first, response_headers: varyResponse(vary), setup: true }, { request_headers: second, ...notCached }] })
add('vary-omit', varyCase([['Foo', '1']], ['Foo'], []))
add('vary-no-match', varyCase([['Foo', '1']], ['Foo'], [['Foo', '2']]))
add('vary-2-no-match', varyCase([['Foo', '1'], ['Bar', 'abc']], ['Foo, Bar'], [['Foo', '2'], ['Bar', 'abc']]))
add('vary-2-match-omit', varyCase([['Foo', '1']], ['Foo, Bar'], []))
add('vary-3-no-match', varyCase([['Foo', '1'], ['Bar', 'abc'], ['Baz', '789']], ['Foo, Bar, Baz'], [['Foo', '2'], ['Bar', 'abc'], ['Baz', '789']]))
add('vary-3-order', varyCase([['Foo', '1'], ['Bar', 'abc4'], ['Baz', '789']], ['Foo, Bar, Baz'], [['Foo', '1'], ['Bar', 'abc'], ['Baz', '789']]))
add('vary-star', varyCase([['Foo', '1'], ['Baz', '789']], ['*'], [['Baz', '789']]))
for (const [id, lines] of [['vary-syntax-star', ['*']], ['vary-syntax-star-star', ['*, *']], ['vary-syntax-star-star-lines', ['*', '*']],
  ['vary-syntax-empty-star', [', *']], ['vary-syntax-empty-star-lines', ['', '*']], ['vary-syntax-star-foo', ['*, Foo']], ['vary-syntax-foo-star', ['Foo, *']]]) {
  add(id, varyCase([['Foo', '1'], ['Baz', '789']], lines, [['Foo', '1'], ['Baz', '789']]))
}
add('vary-omit-stored', { requests: [{ response_headers: varyResponse(['Foo']), setup: true }, { request_headers: [['Foo', '1']], ...notCached }] })
const varyReused = (id, first, vary, second, extra = []) => add(id, { requests: [{ request_headers: first, response_headers: [...varyResponse(vary), ...extra], setup: true }, { request_headers: second, ...cached }] })
varyReused('vary-cache-key', [['Foo', '1'], ['Other', '2']], ['Foo'], [['Foo', '1'], ['Other', '3']])
varyReused('vary-2-match', [['Foo', '1'], ['Bar', 'abc']], ['Foo, Bar'], [['Foo', '1'], ['Bar', 'abc']])
varyReused('vary-3-match', [['Foo', '1'], ['Bar', 'abc'], ['Baz', '789']], ['Foo, Bar, Baz'], [['Foo', '1'], ['Bar', 'abc'], ['Baz', '789']])
varyReused('vary-3-omit', [['Foo', '1'], ['Baz', '789']], ['Foo, Bar, Baz'], [['Foo', '1'], ['Baz', '789']])
varyReused('vary-normalise-combine', [['Foo', '1, 2']], ['Foo'], [['Foo', '1'], ['Foo', '2']])
varyReused('vary-normalise-space', [['Foo', '1,2']], ['Foo'], [['Foo', ' 1, 2 ']])
varyReused('vary-normalise-lang-order', [['Accept-Language', 'en, de']], ['Accept-Language'], [['Accept-Language', 'de, en']])
varyReused('vary-normalise-lang-case', [['Accept-Language', 'en, de']], ['Accept-Language'], [['Accept-Language', 'eN, De']])
varyReused('vary-normalise-lang-space', [['Accept-Language', 'en, de']], ['Accept-Language'], [['Accept-Language', ' en ,   de']])
varyReused('vary-normalise-lang-select', [['Accept-Language', 'en, de']], ['Accept-Language'], [['Accept-Language', 'fr;q=0.5, de;q=1.0']], [['Content-Language', 'de']])
add('vary-match', { requests: [{ request_headers: [['Foo', '1']], response_headers: varyResponse(['Foo']), setup: true }, { request_headers: [['Foo', '1']], ...cached }] })
add('vary-invalidate', {
  requests: [
    { request_headers: [['Foo', '1']], response_headers: varyResponse(['Foo']), response_body: 'foo_1', setup: true },
    { request_headers: [['Foo', '2']], response_headers: varyResponse(['Foo']), response_body: 'foo_2', ...notCached, setup: true },
    { request_headers: [['Foo', '1']], response_body: 'foo_1', ...cached }
  ]
})

// Invalidation after unsafe methods (RFC 9111 §4.4)
for (const method of ['POST', 'PUT', 'DELETE', 'M-SEARCH']) {
  add(`invalidate-${method}`, { requests: [fresh({ setup: true }), { request_method: method, request_body: 'abc', setup: true }, notCached] })
  add(`invalidate-${method}-failed`, { requests: [fresh({ setup: true }), { request_method: method, request_body: 'abc', response_status: [500, 'Internal Server Error'], setup: true }, cached] })
  add(`invalidate-${method}-location`, {
    requests: [fresh({ filename: 'location_target', setup: true }),
      { request_method: method, request_body: 'abc', response_headers: [['Location', 'location_target'], ['Content-Location', 'content_location_target']], setup: true },
      fresh({ filename: 'location_target', ...notCached })]
  })
  add(`invalidate-${method}-cl`, {
    requests: [fresh({ filename: 'content_location_target', setup: true }),
      { request_method: method, request_body: 'abc', response_headers: [['Location', 'location_target'], ['Content-Location', 'content_location_target']], setup: true },
      fresh({ filename: 'content_location_target', ...notCached })]
  })
}

// Updating stored headers from a 304 (RFC 9111 §3.2, §4.3.4)
for (const [header, a, b] of [['Test-Header', 'A', 'B'], ['X-Test-Header', 'A', 'B'], ['Content-Foo', 'A', 'B'], ['X-Content-Foo', 'A', 'B'],
  ['Content-Type', 'text/plain', 'text/plain;charset=utf-8'], ['Cache-Control', 'max-age=1', 'max-age=3600']]) {
  for (const [kind, validator, value] of [['lm', 'Last-Modified', -86400], ['etag', 'ETag', `"${header}-etag-1"`]]) {
    const make = (v, lifetime) => [header === 'Cache-Control' ? ['A', 'b'] : ['Cache-Control', `max-age=${lifetime}`], ['Date', 0], [validator, value], [header, v]]
    const validated = `${kind}_validated`
    add(`304-${kind}-update-response-${header}`, { requests: [{ response_headers: make(a, 1), setup: true, pause_after: true }, { response_headers: make(b, 3600), expected_type: validated, expected_response_headers: [[header, b]] }] })
    add(`304-${kind}-update-stored-${header}`, {
      requests: [{ response_headers: make(a, 1), setup: true, pause_after: true }, { response_headers: make(b, 3600), expected_type: validated, setup: true, pause_after: true },
        { ...cached, expected_response_headers: [[header, b]] }]
    })
  }
}
add('304-lm-use-stored-Test-Header', {
  requests: [{ response_headers: [['Cache-Control', 'max-age=1'], ['Last-Modified', -86400], ['Date', 0], ['Test-Header', 'A']], setup: true, pause_after: true },
    { response_headers: [['Cache-Control', 'max-age=3600'], ['Last-Modified', -86400], ['Date', 0]], expected_type: 'lm_validated', expected_response_headers: [['Test-Header', 'A']] }]
})

// Partial content: a stored part never answers a whole request (RFC 9111 §3.3)
add('partial-not-whole', {
  requests: [{ request_headers: [['Range', 'bytes=-5']], response_status: [206, 'Partial Content'], response_headers: [['Cache-Control', 'max-age=3600'], ['Content-Range', 'bytes 4-9/10']], response_body: '01234', setup: true },
    { ...notCached, response_body: '0123456789' }]
})

// Constructing answers from the cache (RFC 9111 §4, §5.1)
add('other-age-gen', once([['Expires', 30 * 24 * 60 * 60], ['Date', 0]], { ...cached, expected_response_headers: [['Age', '>', 2]] }))
add('other-age-update-expires', once([['Expires', 30 * 24 * 60 * 60], ['Date', 0], ['Age', '30']], { ...cached, expected_response_headers: [['Age', '>', 32]] }))
add('other-age-update-max-age', once([['Cache-Control', 'max-age=600'], ['Date', 0], ['Age', '30']], { ...cached, expected_response_headers: [['Age', '>', 32]] }))
add('other-date-update', once([['Expires', 30 * 24 * 60 * 60], ['Date', 0]], { ...cached, expected_response_headers: [['Date', 0]] }))
add('other-date-update-expires', once([['Expires', 30 * 24 * 60 * 60], ['Date', 0]], { ...cached, expected_response_headers: [['Date', 0]] }))
add('other-date-update-expires-update', once([['Expires', 30 * 24 * 60 * 60], ['Date', 0]], { ...cached, expected_response_headers: [['Expires', 30 * 24 * 60 * 60]] }))
add('query-args-same', { requests: [fresh({ query_arg: 'test=same', setup: true }), { query_arg: 'test=same', ...cached }] })
add('other-heuristic-content-disposition-attachment', soon([['Last-Modified', -100000], ['Date', 0], ['Content-Disposition', 'attachment; filename=example.txt']], cached))
add('other-fresh-content-disposition-attachment', { requests: [fresh({ response_headers: [...fresh().response_headers, ['Content-Disposition', 'attachment; filename=example.txt']], setup: true }), cached] })
add('other-set-cookie', { requests: [fresh({ response_headers: [...fresh().response_headers, ['Set-Cookie', 'a=b']], setup: true }), cached] })
add('other-cookie', { requests: [fresh({ setup: true }), { request_headers: [['Cookie', 'a=b']], ...cached }] })
add('method-POST', {
  requests: [{ request_method: 'POST', request_body: '12345', request_headers: [['Content-Type', 'text/plain']], response_headers: [['Expires', 30 * 24 * 60 * 60], ['Content-Location', ''], ['Date', 0]], magic_locations: true, setup: true, pause_after: true },
    cached]
})
add('query-args-different', { requests: [fresh({ query_arg: 'test=1' }), { query_arg: 'test=2', ...notCached }] })

// Conditional requests for a stale stored response (RFC 9111 §4.3.1); ids of ours
add('conditional-etag-stale', once([['Cache-Control', 'max-age=1'], ['ETag', '"abcdef"']], { expected_type: 'etag_validated' }))
add('conditional-lm-generate', once([['Cache-Control', 'max-age=1'], ['Last-Modified', -10000], ['Date', 0]], { expected_type: 'lm_validated' }))

export default [...cases, ...headerCases, ...requestCases]
