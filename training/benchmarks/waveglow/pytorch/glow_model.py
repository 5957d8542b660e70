"""WaveGlow (Prenger, Valle, Catanzaro 2019, "WaveGlow: A Flow-based Generative Network for
Speech Synthesis", arXiv:1811.00002) with the shapes of NVIDIA's reference code
(github.com/NVIDIA/waveglow, DLE's PyTorch/SpeechSynthesis/Tacotron2/waveglow): the mel
spectrogram upsampled by a transposed convolution (kernel 1024, stride 256), audio squeezed
into groups of 8 samples, 12 flows of an invertible 1x1 convolution and an affine coupling
layer whose WN network (8 dilated convolutions of kernel 3, gated tanh x sigmoid, residual and
skip 1x1 convolutions, weight-normalised, conditioned on the mel) predicts log-scale and bias;
2 channels leave early every 4 flows. The loss is the flow's negative log-likelihood per
audio sample under N(0, sigma^2) (DLE's WaveGlowLoss).

No maintained library ships WaveGlow (torchaudio and torch.hub load NVIDIA's code and
weights from the network), so the case builds it here from the published architecture.
"""

from __future__ import annotations

from typing import Any, Mapping

import torch
from torch import Tensor, nn
from torch.nn.utils.parametrizations import weight_norm

PRESETS: dict[str, dict[str, Any]] = {
    # NVIDIA's reference config.json (github.com/NVIDIA/waveglow) and DLE's released model:
    # WN of 256 channels; 87.88 M parameters, the paper's count
    "full": dict(n_mel_channels=80, n_flows=12, n_group=8, n_early_every=4, n_early_size=2,
                 n_layers=8, n_channels=256, kernel_size=3, sigma=1.0, segment_length=8000,
                 hop_length=256, win_length=1024),
    # the CI model: the same structure, 2 x 16-channel WN layers, 16 mel channels, short hops
    "tiny": dict(n_mel_channels=16, n_flows=4, n_group=8, n_early_every=2, n_early_size=2,
                 n_layers=2, n_channels=16, kernel_size=3, sigma=1.0, segment_length=1024,
                 hop_length=64, win_length=256),
}


class Invertible1x1Conv(nn.Module):
    """A channel mixing W initialised as a random rotation (det +1); adds log|det W| per
    group position."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        w = torch.linalg.qr(torch.randn(channels, channels, device="cpu"))[0]   # also under meta
        if torch.det(w) < 0:
            w[:, 0] = -w[:, 0]
        self.weight = nn.Parameter(w)

    def forward(self, z: Tensor) -> tuple[Tensor, Tensor]:
        log_det = z.shape[0] * z.shape[2] * torch.linalg.slogdet(self.weight.float())[1]
        return torch.einsum("ij,bjt->bit", self.weight, z), log_det


class WN(nn.Module):
    """The coupling network: WaveNet-like dilated convolutions conditioned on the mel."""

    def __init__(self, n_in: int, n_cond: int, p: Mapping[str, Any]) -> None:
        super().__init__()
        layers, ch, k = p["n_layers"], p["n_channels"], p["kernel_size"]
        self.channels = ch
        self.start = weight_norm(nn.Conv1d(n_in, ch, 1))
        self.cond_layer = weight_norm(nn.Conv1d(n_cond, 2 * ch * layers, 1))
        self.in_layers = nn.ModuleList(
            weight_norm(nn.Conv1d(ch, 2 * ch, k, dilation=2 ** i, padding=(k - 1) * 2 ** i // 2))
            for i in range(layers))
        self.res_skip_layers = nn.ModuleList(
            weight_norm(nn.Conv1d(ch, 2 * ch if i < layers - 1 else ch, 1)) for i in range(layers))
        self.end = nn.Conv1d(ch, 2 * n_in, 1)
        nn.init.zeros_(self.end.weight)      # each coupling starts as the identity
        nn.init.zeros_(self.end.bias)

    def forward(self, audio: Tensor, spect: Tensor) -> Tensor:
        x, ch = self.start(audio), self.channels
        cond = self.cond_layer(spect)
        out = torch.zeros_like(x)
        for i, (layer, res_skip) in enumerate(zip(self.in_layers, self.res_skip_layers)):
            pre = layer(x) + cond[:, 2 * ch * i: 2 * ch * (i + 1)]
            acts = res_skip(torch.tanh(pre[:, :ch]) * torch.sigmoid(pre[:, ch:]))
            if i < len(self.in_layers) - 1:
                x, out = x + acts[:, :ch], out + acts[:, ch:]
            else:
                out = out + acts
        return self.end(out)


class WaveGlow(nn.Module):
    """forward(mel [B, n_mels, frames], audio [B, samples]) -> the NLL per audio sample."""

    def __init__(self, p: Mapping[str, Any]) -> None:
        super().__init__()
        self.p = dict(p)
        mels, group = p["n_mel_channels"], p["n_group"]
        self.upsample = nn.ConvTranspose1d(mels, mels, 4 * p["hop_length"], stride=p["hop_length"])
        self.convinv, self.WN = nn.ModuleList(), nn.ModuleList()
        remaining = group
        for k in range(p["n_flows"]):
            if k % p["n_early_every"] == 0 and k > 0:
                remaining -= p["n_early_size"]
            self.convinv.append(Invertible1x1Conv(remaining))
            self.WN.append(WN(remaining // 2, mels * group, p))

    def flow(self, spect: Tensor, audio: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """(z, sum of log-scales, sum of log|det W|) of one batch."""
        group, batch = self.p["n_group"], audio.shape[0]
        spect = self.upsample(spect)[:, :, :audio.shape[1]]
        spect = spect.unfold(2, group, group).permute(0, 2, 1, 3).reshape(
            batch, audio.shape[1] // group, -1).transpose(1, 2)
        z = audio.unfold(1, group, group).transpose(1, 2)
        early, log_s_total, log_det_total = [], z.new_zeros(()), z.new_zeros(())
        for k, (inv, wn) in enumerate(zip(self.convinv, self.WN)):
            if k % self.p["n_early_every"] == 0 and k > 0:
                early.append(z[:, :self.p["n_early_size"]])
                z = z[:, self.p["n_early_size"]:]
            z, log_det = inv(z)
            half = z.shape[1] // 2
            out = wn(z[:, :half], spect)
            log_s, bias = out[:, half:], out[:, :half]
            z = torch.cat([z[:, :half], torch.exp(log_s) * z[:, half:] + bias], dim=1)
            log_s_total = log_s_total + log_s.float().sum()
            log_det_total = log_det_total + log_det
        return torch.cat(early + [z], dim=1), log_s_total, log_det_total

    def forward(self, spect: Tensor, audio: Tensor) -> Tensor:
        z, log_s, log_det = self.flow(spect, audio)
        sigma = self.p["sigma"]
        nll = (z.float() ** 2).sum() / (2 * sigma * sigma) - log_s - log_det
        return nll / z.numel()


def waveglow(preset: Mapping[str, Any]) -> WaveGlow:
    return WaveGlow(preset)


def forward_flops(p: Mapping[str, Any], samples: int) -> float:
    """2 x multiply-adds of one segment of ``samples`` audio samples: the upsampling
    transposed convolution, and per flow the 1x1 mixing and the WN network (start, the mel
    conditioning, the dilated and residual/skip convolutions, end) over ``samples / n_group``
    positions. Element-wise gates and the log-likelihood are left out."""
    mels, group, ch, k, layers = (p["n_mel_channels"], p["n_group"], p["n_channels"],
                                  p["kernel_size"], p["n_layers"])
    positions = samples // group
    macs = samples * mels * mels * 4          # each output sample: 4 kernel taps overlap
    remaining = group
    for flow in range(p["n_flows"]):
        if flow % p["n_early_every"] == 0 and flow > 0:
            remaining -= p["n_early_size"]
        half = remaining // 2
        wn = (half * ch + mels * group * 2 * ch * layers + layers * ch * 2 * ch * k
              + (layers - 1) * ch * 2 * ch + ch * ch + ch * 2 * half)
        macs += positions * (remaining * remaining + wn)
    return 2.0 * macs
