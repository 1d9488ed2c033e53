import { invalid } from '../../core/platform/errors.ts';
import { given, numberFlag } from '../command.ts';
import type { Handlers } from '../registry.ts';

/** `--ai-detailed-description` is JSON text (an array); an empty value clears the field. */
function jsonFlag(value: string | boolean | undefined): unknown {
  if (typeof value !== 'string') return value;
  if (value === '') return null;
  try {
    return JSON.parse(value);
  } catch {
    throw invalid('aiDetailedDescription', 'must be a JSON array');
  }
}

/** An empty text flag clears the field (null), so operators can remove a value. */
const textFlag = (value: string | boolean | undefined) => (value === '' ? null : value);

/**
 * `asset analysis set --team ID --file-id ID [--ai-tags T] [--ai-title T] [--ai-description D]
 * [--ai-detailed-description JSON]`: records image analysis made elsewhere (Shelf runs no model).
 * Prints `{"id"}`. The library edit service comes with the core (it reads edited files through search).
 */
export const handlers: Handlers<'asset-analysis'> = {
  'asset analysis set': async (cli, flags) => {
    const input = given({
      team: numberFlag(flags.team),
      fileId: numberFlag(flags['file-id']),
      aiTags: textFlag(flags['ai-tags']),
      aiTitle: textFlag(flags['ai-title']),
      aiDescription: textFlag(flags['ai-description']),
      aiDetailedDescription: jsonFlag(flags['ai-detailed-description']),
    });
    return (await cli.core()).assets.libraryEdit.setAnalysisAsOperator(cli.operatorCtx(), input);
  },
};
