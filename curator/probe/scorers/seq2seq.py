"""Encoder-decoder LMs (T5 style): the query has one sentinel where [Y] was; a candidate's score
is (1/n) Σ log P(cᵢ | sentinel, c<ᵢ, query). The encoder runs once per query and serves every
candidate, which are decoded together as one padded batch.

The sentinel is written into the text and the query tokenized whole, so the spacing around it
is the tokenizer's own (e.g. whether "." after the slot is "▁." depends on its prepend scheme);
candidates are tokenized as words of running text ("▁Paris"), as T5's span targets are."""
from __future__ import annotations

import numpy as np
import torch
from transformers.modeling_outputs import BaseModelOutput

from curator.probe.data import RelationData
from curator.probe.scorers.base import ProbeError, Scorer


class Seq2SeqScorer(Scorer):
    kind = "seq2seq"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        sentinel = self.tok.convert_tokens_to_ids("<extra_id_0>")
        if sentinel is None or sentinel == self.tok.unk_token_id:
            raise ProbeError("this encoder-decoder model's tokenizer has no <extra_id_0> sentinel token")
        self.sentinel = sentinel
        self.sentinel_text = self.tok.convert_ids_to_tokens(sentinel)
        self.start = self.model.config.decoder_start_token_id
        if self.start is None:
            self.start = self.pad_id

    def score_relation(self, data: RelationData) -> np.ndarray:
        return self.with_oom_retry(lambda: self._score(data))

    @torch.inference_mode()
    def _score(self, data: RelationData) -> np.ndarray:
        queries = self.queries(data)
        cand_ids = [ids or [self.tok.unk_token_id] for ids in self.encode([label for _, label in data.candidates])]
        n_max = max(len(c) for c in cand_ids)
        C = len(cand_ids)
        # decoder input: start, sentinel, c1 … c(n-1); targets: sentinel, c1 … cn (only the c's are scored)
        dec_in = torch.full((C, n_max + 1), self.pad_id, dtype=torch.long)
        targets = torch.full((C, n_max + 1), self.pad_id, dtype=torch.long)
        valid = torch.zeros((C, n_max + 1))
        for c, ids in enumerate(cand_ids):
            dec_in[c, :len(ids) + 1] = torch.tensor([self.start, self.sentinel] + ids[:-1])
            targets[c, :len(ids) + 1] = torch.tensor([self.sentinel] + ids)
            valid[c, 1:len(ids) + 1] = 1
        dec_in, targets, valid = dec_in.to(self.device), targets.to(self.device), valid.to(self.device)
        dec_mask = (valid.sum(-1, keepdim=True) >= torch.arange(n_max + 1, device=self.device)).long()
        texts = [before + self.sentinel_text + after for before, after in queries]
        rows = self.tokenize(texts)
        self.check_fits(data, [len(r) for r in rows])  # a no-op for T5 (relative positions)
        self.slot_positions(texts, rows, self.sentinel, 1)  # only to refuse a query without exactly one sentinel
        scores = np.empty((len(queries), C), dtype=np.float32)
        per_chunk = max(1, self.budget // (n_max + 1))  # candidate rows per decoder pass
        encoder = self.model.get_encoder()
        for batch in self.batches([len(r) for r in rows], lambda b, length: b * length):
            ids, attn = self.pad([rows[q] for q in batch], self.pad_id)
            hidden = encoder(input_ids=ids, attention_mask=attn).last_hidden_state
            for j, q in enumerate(batch):
                for start in range(0, C, per_chunk):
                    stop = min(C, start + per_chunk)
                    k = stop - start
                    out = self.model(encoder_outputs=BaseModelOutput(last_hidden_state=hidden[j:j + 1].expand(k, -1, -1)),
                                     attention_mask=attn[j:j + 1].expand(k, -1),
                                     decoder_input_ids=dec_in[start:stop], decoder_attention_mask=dec_mask[start:stop])
                    logits = out.logits.float()
                    if self.options.score_mode == "log-prob":
                        logits = logits.log_softmax(-1)
                    picked = logits.gather(2, targets[start:stop, :, None])[..., 0]
                    scores[q, start:stop] = self.reduce(picked, valid[start:stop]).cpu().numpy()
        return scores
