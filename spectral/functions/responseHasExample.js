// House rule (STYLE.md "named examples per scenario"; defect 4): every response body has at
// least one example, so the mock (Prism) answers with a realistic value and the docs show one.
//
// Given: a media type object of a response (`responses.<status>.content.<media type>`).
export default function responseHasExample(media, _options, context) {
  if (media === null || typeof media !== 'object') return;
  const named = media.examples && typeof media.examples === 'object' ? Object.keys(media.examples).length : 0;
  if (named > 0 || media.example !== undefined) return;
  const [, , , , status, , mediaType] = context.path;
  return [{ message: `The ${status} response (${mediaType}) has no example; add a named one under \`examples\`.` }];
}
