// House rule (part 5.1): every request except the four sign-up operations carries
// `Authorization: Bearer <API_KEY>` and a missing or invalid key gets 401, so every operation
// that requires a key must document its 401 response.
//
// Given: an operation object. An operation requires a key when its effective security (its own
// `security`, else the root `security`) is non-empty and has no empty requirement `{}` (which
// would make the key optional).
export default function authenticatedOperationDocuments401(operation, _options, context) {
  if (operation === null || typeof operation !== 'object') return;
  const root = context.document.data ?? {};
  const security = operation.security ?? root.security ?? [];
  const requiresKey =
    Array.isArray(security) &&
    security.length > 0 &&
    security.every((requirement) => requirement && Object.keys(requirement).length > 0);
  if (!requiresKey) return;
  const responses = operation.responses ?? {};
  if (!Object.prototype.hasOwnProperty.call(responses, '401')) {
    return [
      {
        message: 'This operation requires an API key, so it must document 401 (part 5.1); or opt out with `security: []`.',
        path: [...context.path, 'responses'],
      },
    ];
  }
}
