export { canonicalJson } from './canonical-json.js';
export { requestHash } from './request-hash.js';
export {
  encodeMicrosPageToken,
  decodeMicrosPageToken,
  encodeListingPageToken,
  decodeListingPageToken,
  type MicrosPageCursor,
  type ListingPageCursor,
} from './page-token.js';
export { pageSize } from './page-size.js';
