import { describe, expect, it } from 'vitest';
import {
  forEachInSlices,
  forEachJsonArrayElement,
  isJsonArrayText,
  SLICE_CHARS,
} from '../../../src/sources/json-array-slices.ts';
import { turnCounter } from '../../support/event-loop-turns.ts';

/** What the sliced reader makes of `text`: its elements, or null where JSON.parse refuses the text. */
async function sliced(text: string, sliceChars: number): Promise<unknown[] | null> {
  const values: unknown[] = [];
  const indexes: number[] = [];
  const ok = await forEachJsonArrayElement(
    text,
    (value, index) => {
      values.push(value);
      indexes.push(index);
    },
    sliceChars,
  );
  expect(indexes).toEqual(values.map((_, index) => index));
  return ok ? values : null;
}

function whole(text: string): unknown[] | null {
  try {
    return JSON.parse(text) as unknown[];
  } catch {
    return null;
  }
}

describe('a JSON array read in slices', () => {
  const arrays = [
    '[]',
    ' [ ] ',
    '\n[1]\n',
    '[1,2,3]',
    '[{"a":"x,y","b":[1,[2,{"c":"]}"}]]},null,true,false,-0.5e3]',
    '["quote \\" inside", "backslash \\\\", "\\\\\\"", "\\u005d", "[{", "}]"]',
    '["日本語", "emoji 🧪", "\\ud83e\\uddea", ""]',
    '[ {"k" : 1} , {"k":2}\t,\r\n{"k":3} ]',
    '[[[]],[{}],{"a":{}}]',
  ];
  const notJson = [
    '',
    '[',
    '[1,',
    '[1,]',
    '[,1]',
    '[1,,2]',
    '[1 2]',
    '[1],',
    '[1]]',
    '[1] x',
    '[{"a":1]}',
    '["unterminated]',
    '["a\\"]',
    '[{"a":1},{"b":}]',
    '[1,2,3,4,5,6,7,8,9,]',
    '[1, ,2]',
    '[01]',
    "['single']",
  ];
  for (const sliceChars of [1, 2, 3, 7, SLICE_CHARS]) {
    it(`reads what JSON.parse reads and refuses what it refuses (slices of ${sliceChars})`, async () => {
      for (const text of [...arrays, ...notJson]) {
        if (!isJsonArrayText(text)) {
          expect(whole(text), text).toBeNull();
          continue;
        }
        expect(await sliced(text, sliceChars), text).toEqual(whole(text));
      }
    });
  }

  it('knows an array text from any other JSON text', () => {
    expect(isJsonArrayText(' \n[1]')).toBe(true);
    expect(isJsonArrayText('{"a":[1]}')).toBe(false);
    expect(isJsonArrayText('"[1]"')).toBe(false);
    expect(isJsonArrayText('   ')).toBe(false);
  });

  it('reads a large generated array exactly as JSON.parse does', async () => {
    const rows = Array.from({ length: 3_000 }, (_, index) => ({
      id: index,
      text: `row ${index} "quoted" \\ [${'x'.repeat(index % 50)}] {}`,
      nested: { list: [index, `${index}`], empty: [] },
    }));
    const text = JSON.stringify(rows);
    expect(await sliced(text, 1_000)).toEqual(rows);
    // Cut anywhere, it is refused as JSON.parse refuses it.
    for (const cut of [1, 17, text.length / 3, text.length - 2, text.length - 1]) {
      expect(await sliced(text.slice(0, Math.floor(cut)), 1_000)).toBeNull();
    }
  });

  it('lets the event loop run between slices', async () => {
    const text = JSON.stringify(
      Array.from({ length: 2_000 }, (_, index) => ({ index, pad: 'p'.repeat(200) })),
    );
    const turns = turnCounter();
    const turnsWhenRead: number[] = [];
    expect(await forEachJsonArrayElement(text, () => turnsWhenRead.push(turns.now()))).toBe(true);
    turns.stop();
    expect(turnsWhenRead).toHaveLength(2_000);
    // The first slice is read at once; ~450 KiB in 64 Ki-character slices means other callbacks
    // ran before each of the following ones.
    expect(turnsWhenRead[0]).toBe(0);
    expect(new Set(turnsWhenRead).size).toBe(Math.ceil(text.length / SLICE_CHARS));
  });

  it('handles items in slices, in order, with turns of the event loop between them', async () => {
    const items = Array.from({ length: 2_500 }, (_, index) => index);
    const handled: number[] = [];
    const turnsWhenHandled: number[] = [];
    const turns = turnCounter();
    await forEachInSlices(
      items,
      (item) => {
        handled.push(item);
        turnsWhenHandled.push(turns.now());
      },
      500,
    );
    turns.stop();
    expect(handled).toEqual(items);
    // Items of one slice are handled in one go; the next slice comes after other callbacks ran.
    for (const start of [0, 500, 1_000, 1_500, 2_000]) {
      expect(new Set(turnsWhenHandled.slice(start, start + 500)).size).toBe(1);
    }
    expect(new Set(turnsWhenHandled).size).toBe(5);
  });
});
