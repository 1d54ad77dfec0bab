// Building blocks the case files share. Dates given as numbers are seconds from the moment of the request.

/** A response fresh for a long time by both Expires and max-age, with Last-Modified and Date. */
export const fresh = (r = {}) => ({ response_headers: [['Expires', 100000], ['Cache-Control', 'max-age=100000'], ['Last-Modified', 0], ['Date', 0]], ...r })
/** A response already stale by its Expires. */
export const stale = (r = {}) => ({ response_headers: [['Expires', -5000], ['Last-Modified', -100000], ['Date', 0]], ...r })
/** A setup response fresh for two seconds (one pause makes it stale), with a field to look for later. */
export const becomeStale = (r = {}) => ({ response_headers: [['Cache-Control', 'max-age=2'], ['Template-A', '1'], ...(r.response_headers ?? [])], setup: true, pause_after: true, ..._without(r, 'response_headers') })
/** Two requests: a setup answered with `headers` (then a pause), and `second`. */
export const once = (headers, second, extra = {}) => ({ requests: [{ response_headers: headers, setup: true, pause_after: true, ...extra }, second] })
/** The same, without the pause. */
export const soon = (headers, second, extra = {}) => ({ requests: [{ response_headers: headers, setup: true, ...extra }, second] })
export const cached = { expected_type: 'cached' }
export const notCached = { expected_type: 'not_cached' }

function _without (object, key) { const copy = { ...object }; delete copy[key]; return copy }
