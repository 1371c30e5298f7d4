import { communityV1, jobsExecutionV1 } from '@atelier/contracts';
import { createServiceClient, type GrpcSecurity } from '@atelier/grpc';

/** What an owner's delete asks before it removes an asset: who still uses it. */
export interface AssetUsage {
  /** Queued or running jobs of the owner with the asset as input, or writing it (`producingJobId`). */
  activeJobs(assetId: string, ownerUserId: string, producingJobId: string | undefined): Promise<number>;
  /** Published posts of the owner that show the asset. */
  publishedPosts(assetId: string, ownerUserId: string): Promise<number>;
}

/**
 * AssetUsage over gRPC: jobs' CountActiveJobsUsingAsset and community's
 * CountPublishedPostsUsingAsset (each service allows media that one method). Failures throw as
 * the peers answered them; the delete then puts the asset back and answers UNAVAILABLE.
 */
export function grpcAssetUsage(addresses: { jobs: string; community: string }, security: GrpcSecurity): AssetUsage & { close(): void } {
  const jobs = createServiceClient(jobsExecutionV1.JobExecutionServiceClient, addresses.jobs, security);
  const community = createServiceClient(communityV1.CommunityServiceClient, addresses.community, security);
  return {
    activeJobs: async (assetId, userId, producingJobId) =>
      (await jobs.countActiveJobsUsingAsset({ assetId, userId, producingJobId })).count,
    publishedPosts: async (assetId, authorUserId) => (await community.countPublishedPostsUsingAsset({ assetId, authorUserId })).count,
    close() {
      jobs.close();
      community.close();
    },
  };
}
