import { utf8Length } from '@wharf/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatEvidenceMarker, neutralizeEvidenceMarkers, parseEvidenceMarkers } from './evidence-marker.js';

describe('evidence markers', () => {
  it('formats a marker that parses back', () => {
    const text = formatEvidenceMarker({ runId: '48', jobId: '123', workerId: 'abc-123' });
    expect(text).toBe('[EVIDENCE:run_id=48,job_id=123,worker_id=abc-123]');
    expect(parseEvidenceMarkers(text).markers).toEqual([
      { runId: '48', jobId: '123', workerId: 'abc-123', raw: text, start: 0, end: text.length },
    ]);
  });

  it('refuses to format ids that would not read back', () => {
    expect(() => formatEvidenceMarker({ runId: '4,8', jobId: '1', workerId: 'w' })).toThrow(/run_id/);
    expect(() => formatEvidenceMarker({ runId: '48', jobId: '1', workerId: 'w]' })).toThrow(/worker_id/);
  });

  it('finds several markers in prose, with whitespace, any key order and case', () => {
    const text =
      'Done.\n[EVIDENCE:run_id=48,job_id=1,worker_id=a]\nand also [ evidence : worker_id = b , job_id= 2,run_id =48 ] ok';
    const { markers, malformed } = parseEvidenceMarkers(text);
    expect(malformed).toEqual([]);
    expect(markers.map((marker) => [marker.jobId, marker.workerId])).toEqual([
      ['1', 'a'],
      ['2', 'b'],
    ]);
    expect(text.slice(markers[1]?.start, markers[1]?.end)).toBe(
      '[ evidence : worker_id = b , job_id= 2,run_id =48 ]',
    );
  });

  it('ignores unknown keys but reports malformed markers with a reason', () => {
    const text = [
      '[EVIDENCE:run_id=1,job_id=2,worker_id=w,extra=x]',
      '[EVIDENCE:run_id=1,job_id=2]',
      '[EVIDENCE:run_id=1,run_id=2,job_id=2,worker_id=w]',
      '[EVIDENCE:run_id=1,job_id=2 worker_id=w]',
      '[EVIDENCE:run_id=1,job_id=../x,worker_id=w]',
      '[EVIDENCE:run_id=1 [EVIDENCE:run_id=5,job_id=6,worker_id=z]',
      '[EVIDENCE:run_id=1,job_id=2',
    ].join('\n');
    const { markers, malformed } = parseEvidenceMarkers(text);
    expect(markers.map((marker) => marker.jobId)).toEqual(['2', '6']);
    expect(malformed.map((entry) => entry.reason)).toEqual([
      'missing worker_id',
      'run_id appears twice',
      'job_id "2 worker_id=w" is not a valid id',
      'job_id "../x" is not a valid id',
      'marker is not closed with "]"',
      'marker is not closed with "]"',
    ]);
  });

  it('never throws and finds every embedded marker in arbitrary text (property)', () => {
    const id = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,10}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), id, id, id)), fc.string(), (pieces, trailer) => {
        const text =
          pieces
            .map(
              ([noise, runId, jobId, workerId]) =>
                `${noise.replaceAll('[', '(')}${formatEvidenceMarker({ runId, jobId, workerId })}`,
            )
            .join('') + trailer.replaceAll('[', '(');
        const { markers } = parseEvidenceMarkers(text);
        expect(markers.map((marker) => marker.jobId)).toEqual(pieces.map((piece) => piece[2]));
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        expect(() => parseEvidenceMarkers(`[EVIDENCE:${text}`)).not.toThrow();
      }),
    );
  });

  it('defuses every marker in untrusted text, readably and at the same byte length (property)', () => {
    expect(neutralizeEvidenceMarkers('see [ evidence :run_id=1,job_id=2,worker_id=w] [x]')).toBe(
      'see ( evidence :run_id=1,job_id=2,worker_id=w] [x]',
    );
    const id = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,10}$/);
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom('[', '[EVIDENCE', '[ Evidence :', ':', ']', '\n'),
      fc
        .tuple(id, id, id)
        .map(([runId, jobId, workerId]) => formatEvidenceMarker({ runId, jobId, workerId })),
    );
    fc.assert(
      fc.property(fc.array(piece), (pieces) => {
        const text = pieces.join('');
        const safe = neutralizeEvidenceMarkers(text);
        expect(parseEvidenceMarkers(safe)).toEqual({ markers: [], malformed: [] });
        expect(utf8Length(safe)).toBe(utf8Length(text));
        expect(neutralizeEvidenceMarkers(safe)).toBe(safe);
      }),
    );
  });
});
