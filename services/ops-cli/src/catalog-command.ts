import { commonV1 } from '@atelier/contracts';
import type { CatalogKind, CliCommand } from './cli-args.js';
import { CATALOG_API } from './operator-apis.js';
import { connectOperatorApi, peerError } from './operator-grpc.js';
import { catalogToggledLine, formatCatalogJson, formatCatalogTable } from './catalog-report.js';
import type { CommandContext } from './command-context.js';
import { ExitCode } from './exit-codes.js';
import { cliActor } from './operator-actor.js';

type ListCommand = Extract<CliCommand, { name: 'catalog list' }>;
type ToggleCommand = Extract<CliCommand, { name: 'catalog enable' | 'catalog disable' }>;

const MEDIA_KIND: Readonly<Record<CatalogKind, commonV1.MediaKind>> = {
  image: commonV1.MediaKind.IMAGE,
  video: commonV1.MediaKind.VIDEO,
};

/** `atelier-ops catalog list`: every model and style (ListCatalogEntries), disabled ones included. */
export async function listCatalogCommand(command: ListCommand, { io, config }: CommandContext): Promise<ExitCode> {
  const catalog = connectOperatorApi(CATALOG_API, config, config.ATELIER_OPS_TIMEOUT_MS);
  try {
    const mediaKind = command.kind ? MEDIA_KIND[command.kind] : commonV1.MediaKind.UNSPECIFIED;
    const entries = await catalog.listCatalogEntries({ mediaKind });
    io.stdout.write(command.json ? formatCatalogJson(entries) : formatCatalogTable(entries));
    return ExitCode.OK;
  } catch (error) {
    throw peerError(error, CATALOG_API, config.CATALOG_ADDR, config.ATELIER_NAMESPACE);
  } finally {
    catalog.close();
  }
}

/**
 * `atelier-ops catalog enable|disable model|style <id>`: idempotent in catalog, so repeating one
 * is harmless; catalog announces the change and jobs' cache drops its copy.
 */
export async function setCatalogEnabledCommand(command: ToggleCommand, { io, config }: CommandContext): Promise<ExitCode> {
  const enabled = command.name === 'catalog enable';
  const catalog = connectOperatorApi(CATALOG_API, config, config.ATELIER_OPS_TIMEOUT_MS);
  try {
    if (command.entry === 'model') {
      const { model } = await catalog.setModelEnabled({ modelId: command.id, enabled, actor: cliActor(command, config, io.env) });
      io.stdout.write(catalogToggledLine('model', model?.code ?? '?', command.id, model?.enabled ?? enabled));
    } else {
      const { style } = await catalog.setStyleEnabled({ styleId: command.id, enabled, actor: cliActor(command, config, io.env) });
      io.stdout.write(catalogToggledLine('style', style?.code ?? '?', command.id, style?.enabled ?? enabled));
    }
    return ExitCode.OK;
  } catch (error) {
    throw peerError(error, CATALOG_API, config.CATALOG_ADDR, config.ATELIER_NAMESPACE);
  } finally {
    catalog.close();
  }
}
