/**
 * The fields of a Slack Web API call as its form encoding carries them: an object or an array
 * as its JSON text, as the SDK would write it (WebClient's serializeBody); strings, numbers,
 * booleans and Buffers as they are. Given so, the SDK's own walks of every request for its debug
 * log (a redacted copy of the body, then that copy's JSON, whatever the log level) see a few
 * strings instead of every block of a prompt, which perf showed as a measurable share of the
 * binding's CPU per output (D6); the bytes sent are the same.
 */
export function formFields(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const form: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    form[key] =
      typeof value === 'object' && value !== null && !Buffer.isBuffer(value)
        ? JSON.stringify(value)
        : value;
  }
  return form;
}
