/** `aifabric demo`: the built-in example end to end, results written as JSON (and a report) into a folder. */
import { Command } from '@commander-js/extra-typings';
import { addJsonOption, DB_OPTION_HELP } from '../store-options.js';

export function registerDemo(program: Command): void {
  const command = program
    .command('demo')
    .description(
      'run the built-in example: Llama-3-70B-class job on 8 x H100 nodes, TCP vs RoCE vs InfiniBand, 1 to 128 nodes',
    )
    // Not addOutputOptions: this --out is a folder for every result, not a copy of one envelope.
    .option('--out <dir>', 'folder for the JSON results (created if missing)', 'aifabric-out');
  addJsonOption(
    command,
    'print the envelopes it wrote, as one JSON array (what `runs import` and `report --input` read), instead of tables',
  )
    // Not addStoreOptions: demo saves every result it wrote, itself.
    .option('--save', 'record every result it wrote in the results database (list with `aifabric runs list`)')
    .option('--db <path>', DB_OPTION_HELP)
    .action(async (options) => {
      const path = await import('node:path');
      const { runDemo, demoFiles, DEMO_REPORT_TITLE } = await import('../../demo/index.js');
      const { prepareOutputFolder, removeFolders, writeOutputFile } =
        await import('../../core/output-path.js');
      const { rmSync } = await import('node:fs');
      const { toJson } = await import('../emit.js');
      const { renderDemoText } = await import('../render/demo-text.js');
      // Checked (and created) before the work; on a failure part-way, what this run wrote is removed again.
      const createdFolders = prepareOutputFolder(options.out);
      const written: string[] = [];
      const results = runDemo();
      const files = demoFiles(results);
      const envelopes = files.map((file) => file.envelope);
      try {
        const write = (name: string, value: string): void => {
          const file = path.join(options.out, name);
          writeOutputFile(file, value);
          written.push(file);
        };
        for (const file of files) write(file.name, toJson(file.envelope));
        // The report needs vega: imported here only, so other commands never load it.
        const { renderReport } = await import('../../report/index.js');
        write('report.html', (await renderReport(envelopes, { title: DEMO_REPORT_TITLE })).html);
      } catch (error) {
        for (const file of written) rmSync(file, { force: true });
        removeFolders(createdFolders);
        throw error;
      }
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
      process.stdout.write(options.json ? toJson(envelopes) : renderDemoText(results, written));
    });
}
