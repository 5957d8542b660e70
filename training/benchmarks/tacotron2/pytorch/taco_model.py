"""Tacotron 2 (Shen et al. 2018, "Natural TTS Synthesis by Conditioning WaveNet on Mel
Spectrogram Predictions", arXiv:1712.05884) with the layer shapes of NVIDIA's
DeepLearningExamples Tacotron2, the code FlagPerf's tacotron2 runs: a character embedding, a
3-convolution + BiLSTM encoder, a location-sensitive-attention decoder of two LSTM cells fed a
2-layer pre-net (dropout on in training and evaluation, as the paper), and a 5-convolution
post-net. Teacher-forced training; the loss is FlagPerf's (DLE's Tacotron2Loss): MSE of the
mel before and after the post-net plus the stop-token BCE, padded frames masked as DLE does.

torchaudio.models.Tacotron2 has the same shapes (28,193,153 parameters at n_symbol 148), but
no torchaudio wheel for torch 2.13 is on the mirror (README), so the case builds its own.
"""

from __future__ import annotations

from typing import Any, Mapping

import torch
import torch.nn.functional as F
from torch import Tensor, nn

PRESETS: dict[str, dict[str, Any]] = {
    # DLE's defaults (FlagPerf model_params.py); n_symbols: DLE's 148 English symbols
    "full": dict(n_symbols=148, symbols_embedding_dim=512, encoder_n_convolutions=3,
                 encoder_kernel_size=5, n_mel_channels=80, attention_rnn_dim=1024,
                 decoder_rnn_dim=1024, prenet_dim=256, attention_dim=128,
                 attention_location_n_filters=32, attention_location_kernel_size=31,
                 postnet_embedding_dim=512, postnet_kernel_size=5, postnet_n_convolutions=5,
                 p_attention_dropout=0.1, p_decoder_dropout=0.1),
    # the CI model: the same structure, small widths, 16 mel channels
    "tiny": dict(n_symbols=148, symbols_embedding_dim=32, encoder_n_convolutions=1,
                 encoder_kernel_size=5, n_mel_channels=16, attention_rnn_dim=64,
                 decoder_rnn_dim=64, prenet_dim=32, attention_dim=16,
                 attention_location_n_filters=4, attention_location_kernel_size=7,
                 postnet_embedding_dim=32, postnet_kernel_size=5, postnet_n_convolutions=2,
                 p_attention_dropout=0.1, p_decoder_dropout=0.1),
}


def conv_bn(c_in: int, c_out: int, kernel: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv1d(c_in, c_out, kernel, padding=(kernel - 1) // 2),
                         nn.BatchNorm1d(c_out))


class Encoder(nn.Module):
    def __init__(self, p: Mapping[str, Any]) -> None:
        super().__init__()
        dim = p["symbols_embedding_dim"]
        self.convs = nn.ModuleList(conv_bn(dim, dim, p["encoder_kernel_size"])
                                   for _ in range(p["encoder_n_convolutions"]))
        self.lstm = nn.LSTM(dim, dim // 2, batch_first=True, bidirectional=True)

    def forward(self, x: Tensor, lengths: Tensor) -> Tensor:
        for conv in self.convs:
            x = F.dropout(F.relu(conv(x)), 0.5, self.training)
        packed = nn.utils.rnn.pack_padded_sequence(x.transpose(1, 2), lengths.cpu(),
                                                   batch_first=True, enforce_sorted=False)
        out, _ = self.lstm(packed)
        return nn.utils.rnn.pad_packed_sequence(out, batch_first=True,
                                                total_length=x.shape[2])[0]


class Attention(nn.Module):
    """Location-sensitive attention over the encoder outputs."""

    def __init__(self, p: Mapping[str, Any]) -> None:
        super().__init__()
        dim, kernel = p["attention_dim"], p["attention_location_kernel_size"]
        self.query_layer = nn.Linear(p["attention_rnn_dim"], dim, bias=False)
        self.memory_layer = nn.Linear(p["symbols_embedding_dim"], dim, bias=False)
        self.v = nn.Linear(dim, 1, bias=False)
        self.location_conv = nn.Conv1d(2, p["attention_location_n_filters"], kernel,
                                       padding=(kernel - 1) // 2, bias=False)
        self.location_dense = nn.Linear(p["attention_location_n_filters"], dim, bias=False)

    def forward(self, query: Tensor, memory: Tensor, keys: Tensor, weights_cat: Tensor,
                pad: Tensor) -> tuple[Tensor, Tensor]:
        location = self.location_dense(self.location_conv(weights_cat).transpose(1, 2))
        energies = self.v(torch.tanh(self.query_layer(query)[:, None] + location + keys))
        weights = F.softmax(energies.squeeze(-1).masked_fill(pad, float("-inf")), dim=1)
        return torch.bmm(weights[:, None], memory).squeeze(1), weights


class Decoder(nn.Module):
    def __init__(self, p: Mapping[str, Any]) -> None:
        super().__init__()
        self.p = dict(p)
        mels, pre, enc = p["n_mel_channels"], p["prenet_dim"], p["symbols_embedding_dim"]
        att, dec = p["attention_rnn_dim"], p["decoder_rnn_dim"]
        self.prenet = nn.ModuleList([nn.Linear(mels, pre, bias=False),
                                     nn.Linear(pre, pre, bias=False)])
        self.attention_rnn = nn.LSTMCell(pre + enc, att)
        self.attention = Attention(p)
        self.decoder_rnn = nn.LSTMCell(att + enc, dec)
        self.linear_projection = nn.Linear(dec + enc, mels)
        self.gate_layer = nn.Linear(dec + enc, 1)

    def prenet_of(self, x: Tensor) -> Tensor:
        for linear in self.prenet:      # dropout always on (the paper's pre-net)
            x = F.dropout(F.relu(linear(x)), 0.5, training=True)
        return x

    def forward(self, memory: Tensor, mels: Tensor, pad: Tensor) -> tuple[Tensor, Tensor]:
        """Teacher-forced: (mel frames [B, n_mels, T], gate logits [B, T])."""
        batch, frames = memory.shape[0], mels.shape[2]
        go = mels.new_zeros(batch, 1, mels.shape[1])
        inputs = self.prenet_of(torch.cat([go, mels.transpose(1, 2)[:, :-1]], dim=1))
        keys = self.attention.memory_layer(memory)
        state = self.initial_state(memory)
        outs, gates = [], []
        for t in range(frames):
            out, gate, state = self.decode(inputs[:, t], memory, keys, pad, state)
            outs.append(out)
            gates.append(gate)
        return torch.stack(outs, dim=2), torch.cat(gates, dim=1)

    def initial_state(self, memory: Tensor) -> tuple[Tensor, ...]:
        b, steps = memory.shape[0], memory.shape[1]
        att, dec = self.p["attention_rnn_dim"], self.p["decoder_rnn_dim"]
        zeros = memory.new_zeros
        return (zeros(b, att), zeros(b, att), zeros(b, dec), zeros(b, dec),
                zeros(b, steps), zeros(b, steps), zeros(b, memory.shape[2]))

    def decode(self, x: Tensor, memory: Tensor, keys: Tensor, pad: Tensor,
               state: tuple[Tensor, ...]) -> tuple[Tensor, Tensor, tuple[Tensor, ...]]:
        att_h, att_c, dec_h, dec_c, weights, weights_cum, context = state
        att_h, att_c = self.attention_rnn(torch.cat([x, context], -1), (att_h, att_c))
        att_h = F.dropout(att_h, self.p["p_attention_dropout"], self.training)
        both = torch.stack([weights, weights_cum], dim=1)
        context, weights = self.attention(att_h, memory, keys, both, pad)
        dec_h, dec_c = self.decoder_rnn(torch.cat([att_h, context], -1), (dec_h, dec_c))
        dec_h = F.dropout(dec_h, self.p["p_decoder_dropout"], self.training)
        hidden = torch.cat([dec_h, context], -1)
        state = (att_h, att_c, dec_h, dec_c, weights, weights_cum + weights, context)
        return self.linear_projection(hidden), self.gate_layer(hidden), state


class Postnet(nn.Module):
    def __init__(self, p: Mapping[str, Any]) -> None:
        super().__init__()
        mels, dim, k, n = (p["n_mel_channels"], p["postnet_embedding_dim"],
                           p["postnet_kernel_size"], p["postnet_n_convolutions"])
        sizes = [mels] + [dim] * (n - 1) + [mels]
        self.convs = nn.ModuleList(conv_bn(a, b, k) for a, b in zip(sizes, sizes[1:]))

    def forward(self, x: Tensor) -> Tensor:
        for i, conv in enumerate(self.convs):
            x = conv(x)
            x = F.dropout(torch.tanh(x) if i < len(self.convs) - 1 else x, 0.5, self.training)
        return x


class Tacotron2(nn.Module):
    """forward(text, text_lengths, mels, mel_lengths, gates) -> FlagPerf's loss (batch mean)."""

    def __init__(self, p: Mapping[str, Any]) -> None:
        super().__init__()
        self.embedding = nn.Embedding(p["n_symbols"], p["symbols_embedding_dim"])
        self.encoder = Encoder(p)
        self.decoder = Decoder(p)
        self.postnet = Postnet(p)

    def spectrogram(self, text: Tensor, text_lengths: Tensor, mels: Tensor,
                    mel_lengths: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        memory = self.encoder(self.embedding(text).transpose(1, 2), text_lengths)
        pad = torch.arange(text.shape[1], device=text.device)[None] >= text_lengths[:, None]
        mel, gate = self.decoder(memory, mels, pad)
        post = mel + self.postnet(mel)
        frames = torch.arange(mels.shape[2], device=mels.device)[None] >= mel_lengths[:, None]
        return (mel.masked_fill(frames[:, None], 0.0), post.masked_fill(frames[:, None], 0.0),
                gate.masked_fill(frames, 1e3))

    def forward(self, text: Tensor, text_lengths: Tensor, mels: Tensor, mel_lengths: Tensor,
                gates: Tensor) -> Tensor:
        mel, post, gate = self.spectrogram(text, text_lengths, mels, mel_lengths)
        return F.mse_loss(mel.float(), mels) + F.mse_loss(post.float(), mels) + \
            F.binary_cross_entropy_with_logits(gate.float(), gates)


def tacotron2(preset: Mapping[str, Any]) -> Tacotron2:
    return Tacotron2(preset)


def forward_flops(p: Mapping[str, Any], text_len: float, frames: float) -> float:
    """Multiply-adds x 2 of one utterance of ``text_len`` symbols and ``frames`` mel frames:
    the encoder per symbol, the decoder (pre-net, two LSTM cells, attention over the
    ``text_len`` encoder steps, projections) and the post-net per frame. Element-wise
    activations and the softmax are left out."""
    e, m, k = p["symbols_embedding_dim"], p["n_mel_channels"], p["encoder_kernel_size"]
    att, dec, pre, a = p["attention_rnn_dim"], p["decoder_rnn_dim"], p["prenet_dim"], p["attention_dim"]
    nf, lk = p["attention_location_n_filters"], p["attention_location_kernel_size"]
    pe, pk, pn = p["postnet_embedding_dim"], p["postnet_kernel_size"], p["postnet_n_convolutions"]
    encoder = p["encoder_n_convolutions"] * e * e * k + 2 * 4 * (e + e // 2) * (e // 2) + e * a
    per_frame_step = (m * pre + pre * pre + 4 * (pre + e + att) * att + att * a
                      + 4 * (att + e + dec) * dec + (dec + e) * (m + 1))
    per_frame_text = 2 * nf * lk + nf * a + a + e        # location features, energies, context
    post = pk * (m * pe + (pn - 2) * pe * pe + pe * m)
    return 2.0 * (text_len * encoder + frames * (per_frame_step + text_len * per_frame_text + post))
