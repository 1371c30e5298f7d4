import { communityV1, loadDescriptorSet } from '@atelier/contracts';
import { registerService, startGrpcServer, type GrpcServerHandle, type GrpcServingOptions } from '@atelier/grpc';
import type { CommunityContext } from './community-context.js';
import { communityCallerPolicy } from './rpc/caller-policy.js';
import { countPublishedPostsUsingAsset } from './rpc/count-published-posts-using-asset.js';
import { createDraftFromJob } from './rpc/create-draft-from-job.js';
import { createPost } from './rpc/create-post.js';
import { deletePost } from './rpc/delete-post.js';
import { getPost } from './rpc/get-post.js';
import { listFeed } from './rpc/list-feed.js';
import { listMyPosts } from './rpc/list-my-posts.js';
import { getAccountDeletion } from './rpc/get-account-deletion.js';
import { updatePost } from './rpc/update-post.js';

export const COMMUNITY_SERVICE_NAME = 'atelier.community.v1.CommunityService';

/** Serves atelier.community.v1.CommunityService over mutual TLS, with health (and reflection when enabled). */
export function startCommunityServer(context: CommunityContext, options: GrpcServingOptions): Promise<GrpcServerHandle> {
  const handlers = {
    createPost: createPost(context),
    createDraftFromJob: createDraftFromJob(context),
    updatePost: updatePost(context),
    deletePost: deletePost(context),
    getPost: getPost(context),
    listFeed: listFeed(context),
    listMyPosts: listMyPosts(context),
    getAccountDeletion: getAccountDeletion(context),
    countPublishedPostsUsingAsset: countPublishedPostsUsingAsset(context),
  };
  return startGrpcServer({
    ...options,
    logger: context.logger,
    descriptorSet: loadDescriptorSet(),
    services: [
      registerService(COMMUNITY_SERVICE_NAME, communityV1.CommunityServiceService, handlers, context.logger, communityCallerPolicy),
    ],
  });
}
