// House rule (part 8; STYLE.md "Retry-After declared on every 429"): the response declares the
// header named in the options. Header names are case-insensitive (RFC 9110), so is the match.
//
// Given: a response object. Options: { name: 'Retry-After' }
export default function declaresHeader(response, options, _context) {
  if (response === null || typeof response !== 'object') return;
  const wanted = String(options?.name ?? '').toLowerCase();
  const declared = Object.keys(response.headers ?? {}).map((name) => name.toLowerCase());
  if (!declared.includes(wanted)) {
    return [{ message: `This response must declare the \`${options.name}\` header.` }];
  }
}
