/** `aifabric demo`: the built-in example end to end, results written as JSON (and a report) into a folder. */
import { Command } from '@commander-js/extra-typings';
import { DB_OPTION_HELP } from '../store-options.js';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('run the built-in example: Llama-3-70B-class job on 8 x H100 nodes, TCP vs RoCE vs InfiniBand, 1 to 128 nodes')
    .option('--out <dir>', 'folder for the JSON results (created if missing)', 'aifabric-out')
    .option('--json', 'print the envelopes it wrote, as one JSON array (what `runs import` and `report --input` read), instead of tables')
    .option('--save', 'record every result it wrote in the results database (list with `aifabric runs list`)')
    .option('--db <path>', DB_OPTION_HELP)
    .action(async (options) => {
      const path = await import('node:path');
      const { runDemo } = await import('../../demo/demo.js');
      const { prepareOutputFolder, removeFolders, writeOutputFile } = await import('../../core/output-path.js');
      const { rmSync } = await import('node:fs');
      const { toJson } = await import('../emit.js');
      const { renderCompareText, renderScaleText, renderSplitLines } = await import('../render/plan-text.js');
      // Checked (and created) before the work; on a failure part-way, what this run wrote is removed again.
      const createdFolders = prepareOutputFolder(options.out);
      const written: string[] = [];
      const results = runDemo();
      try {
        const write = (name: string, value: string): void => {
          const file = path.join(options.out, name);
          writeOutputFile(file, value);
          written.push(file);
        };
        write('compare.json', toJson(results.compare));
        write('scale.json', toJson(results.scale));
        for (const collective of results.collectives) write(`collective-${String(collective.inputs.fabric)}.json`, toJson(collective));
        // The report needs vega: imported here only, so other commands never load it.
        const { renderReport } = await import('../../report/index.js');
        write('report.html', (await renderReport([results.compare, results.scale, ...results.collectives], { title: 'aifabric demo' })).html);
      } catch (error) {
        for (const file of written) rmSync(file, { force: true });
        removeFolders(createdFolders);
        throw error;
      }
      const envelopes = [results.compare, results.scale, ...results.collectives];
      if (options.save) {
        const { resolveDbPath, RunStore } = await import('../../store/index.js');
        const dbPath = resolveDbPath(options.db);
        const store = new RunStore(dbPath);
        try {
          const ids = envelopes.map((envelope) => store.save(envelope));
          process.stderr.write(`saved as runs ${ids.join(', ')} in ${dbPath}\n`);
        } finally {
          store.close();
        }
      }
      if (options.json) {
        process.stdout.write(toJson(envelopes));
        return;
      }
      // The headline first: how much of TCP 100G -> RoCE 400G is the faster port and how much the transport.
      if (results.split) process.stdout.write(renderSplitLines([results.split]));
      process.stdout.write('\n== Which fabric for this job? (8 nodes)\n');
      process.stdout.write(renderCompareText(results.compare));
      process.stdout.write('\n== Scaling\n');
      process.stdout.write(renderScaleText(results.scale));
      process.stdout.write(`\nwrote ${written.join(', ')}\n`);
    });
}
