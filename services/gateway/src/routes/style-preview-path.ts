/**
 * Where a style's preview image loads from (routes/style-preview-route.ts): a path of this API's
 * origin that anyone may GET without a token (an `<img>` or an image loader sends none). Stable,
 * unlike the presigned URL it redirects to, so the app may keep it with the catalog.
 */
export const stylePreviewPath = (styleId: string) => `/public/styles/${styleId}/preview`;
