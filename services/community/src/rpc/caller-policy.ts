import type { communityV1 } from '@atelier/contracts';
import type { CallerPolicy } from '@atelier/grpc';

/**
 * Who may call what (callers are the service identities of their certificates): the gateway acts
 * for users; media asks whether a published post shows an asset its owner deletes, and nothing else.
 */
export const communityCallerPolicy: CallerPolicy<typeof communityV1.CommunityServiceService> = {
  gateway: ['createPost', 'createDraftFromJob', 'updatePost', 'deletePost', 'getPost', 'listFeed', 'listMyPosts', 'getAccountDeletion'],
  media: ['countPublishedPostsUsingAsset'],
};
