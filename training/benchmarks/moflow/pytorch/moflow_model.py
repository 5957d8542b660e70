"""MoFlow (Zang & Wang 2020, "MoFlow: An Invertible Flow Model for Generating Molecular
Graphs", arXiv:2006.10137) with the shapes of NVIDIA DeepLearningExamples' MoFlow, the code
FlagPerf's moflow runs (its zinc250k configuration): a Glow on the bond tensor (4 bond
channels over 40 x 40 atom pairs, squeezed by 20 into 1600 channels of 2 x 2; 10 flows of
ActNorm + an affine coupling whose network is 3x3 convolutions 512-512 with batch norm and
ReLU, halves swapped every other flow, no invertible 1x1 convolution) and a graph-conditional
flow on the atom one-hot matrix (40 atoms x 10 types; 38 flows of ActNorm over the atoms + an
affine coupling that updates one atom row from the others through a relational graph
convolution of 256 over the 4 bond types, then linear layers 512-64 with batch norm), sigmoid
scales. Uniform dequantisation noise (0.6) is added to both; the loss is the Gaussian
negative log-likelihood in bits per dimension of the atoms plus that of the bonds, with a
learned log-variance.

No maintained library ships MoFlow; the case builds it here.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import torch
import torch.distributed as tdist
import torch.nn.functional as F
from torch import Tensor, nn

PRESETS: dict[str, dict[str, Any]] = {
    # DLE's ZINC250K_CONFIG (FlagPerf's config_name "zinc250k")
    "full": dict(max_num_nodes=40, num_node_types=10, num_edge_types=4, b_n_flow=10,
                 b_n_squeeze=20, b_hidden_ch=[512, 512], a_n_flow=38, a_hidden_gnn=[256],
                 a_hidden_lin=[512, 64], mask_row_size=1, mask_row_stride=1, noise_scale=0.6),
    # the CI model: 8 atoms of 10 types, 2 bond flows of 16 channels, 8 atom flows
    "tiny": dict(max_num_nodes=8, num_node_types=10, num_edge_types=4, b_n_flow=2,
                 b_n_squeeze=4, b_hidden_ch=[16, 16], a_n_flow=8, a_hidden_gnn=[16],
                 a_hidden_lin=[32, 8], mask_row_size=1, mask_row_stride=1, noise_scale=0.6),
}


class ActNorm(nn.Module):
    """Per-channel affine, initialised from the first training batch (mean 0, std 1 per
    channel, averaged over the ranks); log-det = elements per channel x sum log|scale|."""

    def __init__(self, channels: int, dims: int) -> None:
        super().__init__()
        shape = [1, channels] + [1] * (dims - 2)
        self.loc = nn.Parameter(torch.zeros(shape))
        self.scale = nn.Parameter(torch.ones(shape))
        self.register_buffer("initialized", torch.tensor(False))

    def initialize(self, x: Tensor) -> None:
        flat = x.detach().transpose(0, 1).reshape(x.shape[1], -1)
        stats = torch.stack([flat.mean(1), flat.std(1)])
        if tdist.is_available() and tdist.is_initialized():
            tdist.all_reduce(stats)
            stats /= tdist.get_world_size()
        self.loc.data.copy_(-stats[0].view_as(self.loc))
        self.scale.data.copy_((1 / (stats[1] + 1e-6)).view_as(self.scale))
        self.initialized.fill_(True)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        if self.training and not bool(self.initialized):
            self.initialize(x)
        per_channel = x[0, 0].numel()
        return self.scale * (x + self.loc), per_channel * torch.log(self.scale.abs()).sum()

    def reverse(self, y: Tensor) -> Tensor:
        return y / self.scale - self.loc


class AffineCoupling(nn.Module):
    """The bond flow's coupling: half the channels scale and shift the other half."""

    def __init__(self, channels: int, hidden: list[int], swap: bool) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        last = channels // 2
        for h in hidden:
            layers += [nn.Conv2d(last, h, 3, padding=1), nn.BatchNorm2d(h), nn.ReLU()]
            last = h
        layers.append(nn.Conv2d(last, channels, 3, padding=1))
        self.net, self.swap = nn.Sequential(*layers), swap

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        a, b = x.chunk(2, 1)
        if self.swap:
            a, b = b, a
        s_logits, t = self.net(a).chunk(2, 1)
        b = (b + t) * torch.sigmoid(s_logits)
        logdet = F.logsigmoid(s_logits).reshape(x.shape[0], -1).sum(1)
        return (torch.cat([b, a], 1) if self.swap else torch.cat([a, b], 1)), logdet

    def reverse(self, y: Tensor) -> Tensor:
        a, b = y.chunk(2, 1)
        if self.swap:
            a, b = b, a
        s_logits, t = self.net(a).chunk(2, 1)
        b = b / torch.sigmoid(s_logits) - t
        return torch.cat([b, a], 1) if self.swap else torch.cat([a, b], 1)


class GraphConv(nn.Module):
    """Relational graph convolution: a self term plus, per bond type, the neighbours' sum."""

    def __init__(self, c_in: int, c_out: int, nodes: int, edge_types: int) -> None:
        super().__init__()
        self.self_linear = nn.Linear(c_in, c_out)
        self.edge_linear = nn.Linear(c_in, c_out * edge_types)
        self.nodes, self.c_out, self.edge_types = nodes, c_out, edge_types

    def forward(self, adj: Tensor, h: Tensor) -> Tensor:
        m = self.edge_linear(h).view(-1, self.nodes, self.c_out, self.edge_types)
        return self.self_linear(h) + torch.einsum("bemn,bnce->bmc", adj, m)


class GraphAffineCoupling(nn.Module):
    """The atom flow's coupling: the other atom rows, through the graph, update the masked ones
    (DLE's mask: 0 on the masked rows)."""

    def __init__(self, p: Mapping[str, Any], masked_rows: list[int]) -> None:
        super().__init__()
        nodes, types = p["max_num_nodes"], p["num_node_types"]
        self.convs = nn.ModuleList()
        self.conv_norms = nn.ModuleList()
        last = types
        for h in p["a_hidden_gnn"]:
            self.convs.append(GraphConv(last, h, nodes, p["num_edge_types"]))
            self.conv_norms.append(nn.BatchNorm1d(nodes))
            last = h
        layers: list[nn.Module] = []
        for h in p["a_hidden_lin"]:
            layers += [nn.Linear(last, h), nn.BatchNorm1d(nodes), nn.ReLU()]   # norm over atoms
            last = h
        layers.append(nn.Linear(last, 2 * types))
        self.linear = nn.Sequential(*layers)
        mask = torch.ones(nodes, types)
        mask[masked_rows] = 0
        self.register_buffer("mask", mask)

    def scale_shift(self, adj: Tensor, kept: Tensor) -> tuple[Tensor, Tensor]:
        h = kept
        for conv, norm in zip(self.convs, self.conv_norms):
            h = F.relu(norm(conv(adj, h)))
        s_logits, t = self.linear(h).chunk(2, dim=-1)
        return s_logits, t

    def forward(self, adj: Tensor, x: Tensor) -> tuple[Tensor, Tensor]:
        s_logits, t = self.scale_shift(adj, self.mask * x)
        out = self.mask * x + (1 - self.mask) * (x + t) * torch.sigmoid(s_logits)
        return out, F.logsigmoid(s_logits).reshape(x.shape[0], -1).sum(1)

    def reverse(self, adj: Tensor, y: Tensor) -> Tensor:
        s_logits, t = self.scale_shift(adj, self.mask * y)
        return self.mask * y + (1 - self.mask) * (y / torch.sigmoid(s_logits) - t)


class MoFlow(nn.Module):
    """forward(x [B, atoms, types], adj [B, bond types, atoms, atoms]) -> NLL in bits/dim
    (atoms + bonds)."""

    def __init__(self, p: Mapping[str, Any]) -> None:
        super().__init__()
        self.p = dict(p)
        nodes, fold = p["max_num_nodes"], p["b_n_squeeze"]
        channels = p["num_edge_types"] * fold * fold
        self.bond_norms = nn.ModuleList(ActNorm(channels, 4) for _ in range(p["b_n_flow"]))
        self.bond_couplings = nn.ModuleList(AffineCoupling(channels, p["b_hidden_ch"], bool(i % 2))
                                            for i in range(p["b_n_flow"]))
        rows = [[r % nodes for r in range(i * p["mask_row_stride"],
                                          i * p["mask_row_stride"] + p["mask_row_size"])]
                for i in range(p["a_n_flow"])]
        self.atom_norms = nn.ModuleList(ActNorm(nodes, 3) for _ in range(p["a_n_flow"]))
        self.atom_couplings = nn.ModuleList(GraphAffineCoupling(p, r) for r in rows)
        self.ln_var = nn.Parameter(torch.zeros(1))

    def squeeze(self, adj: Tensor) -> Tensor:
        b, c, n, _ = adj.shape
        fold = self.p["b_n_squeeze"]
        x = adj.view(b, c, n // fold, fold, n // fold, fold).permute(0, 1, 3, 5, 2, 4)
        return x.reshape(b, c * fold * fold, n // fold, n // fold)

    def dequantise(self, t: Tensor) -> Tensor:
        """t + U(0, noise_scale): random in training; in evaluation the same draw every time
        (a generator seeded 0), so that the validation likelihood is a fixed function of the
        model. (DLE adds no noise in evaluation; it evaluates by sampling molecules.)"""
        if self.training:
            return t + torch.rand_like(t) * self.p["noise_scale"]
        fixed = torch.Generator(device=t.device).manual_seed(0)
        return t + torch.rand(t.shape, generator=fixed, device=t.device, dtype=t.dtype) \
            * self.p["noise_scale"]

    def flows(self, x: Tensor, adj: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        h, log_x = self.dequantise(x), x.new_zeros(x.shape[0])
        for norm, coupling in zip(self.atom_norms, self.atom_couplings):
            h, det = norm(h)
            h, det2 = coupling(adj, h)
            log_x = log_x + det + det2
        z, log_adj = self.squeeze(self.dequantise(adj)), adj.new_zeros(adj.shape[0])
        for norm, coupling in zip(self.bond_norms, self.bond_couplings):
            z, det = norm(z)
            z, det2 = coupling(z)
            log_adj = log_adj + det + det2
        return h, z, log_x, log_adj

    def forward(self, x: Tensor, adj: Tensor) -> Tensor:
        h, z, log_x, log_adj = self.flows(x, adj)
        return bits_per_dim(h, log_x, self.ln_var) + bits_per_dim(z, log_adj, self.ln_var)

    def unsqueeze(self, z: Tensor) -> Tensor:
        b, c, h, w = z.shape
        fold = self.p["b_n_squeeze"]
        x = z.view(b, c // (fold * fold), fold, fold, h, w).permute(0, 1, 4, 2, 5, 3)
        return x.reshape(b, c // (fold * fold), h * fold, w * fold)

    def reverse(self, z: Tensor) -> tuple[Tensor, Tensor]:
        """DLE's ``MoFlow.reverse``: latents [B, atoms x types + bond types x atoms x atoms]
        -> (atom scores [B, atoms, types], one-hot bonds [B, bond types, atoms, atoms]): the
        bond flow inverted, made symmetric, its most likely bond type per pair; then the atom
        flow inverted given those bonds."""
        nodes, types, edges = (self.p["max_num_nodes"], self.p["num_node_types"],
                               self.p["num_edge_types"])
        z_x, z_adj = z[:, :nodes * types], z[:, nodes * types:]
        adj = self.unsqueeze(self.bonds_reverse(self.squeeze(z_adj.reshape(-1, edges, nodes, nodes))))
        adj = ((adj + adj.transpose(2, 3)) / 2).softmax(dim=1)
        adj = torch.floor(adj / adj.max(dim=1, keepdim=True).values)
        return self.atoms_reverse(adj, z_x.reshape(-1, nodes, types)), adj

    def bonds_reverse(self, z: Tensor) -> Tensor:
        """The bond flows inverted (squeezed in, squeezed out)."""
        for norm, coupling in zip(reversed(self.bond_norms), reversed(self.bond_couplings)):
            z = norm.reverse(coupling.reverse(z))
        return z

    def atoms_reverse(self, adj: Tensor, h: Tensor) -> Tensor:
        """The atom flows inverted, given the bonds."""
        for norm, coupling in zip(reversed(self.atom_norms), reversed(self.atom_couplings)):
            h = norm.reverse(coupling.reverse(adj, h))
        return h

    def sample(self, count: int, temperature: float, generator: torch.Generator) -> tuple[Tensor, Tensor]:
        """``count`` molecules from latents N(0, temperature^2 x exp(ln_var)) (DLE's
        ``infer``): (atom codes [count, atoms], bond codes [count, atoms, atoms])."""
        p = self.p
        dims = p["max_num_nodes"] * (p["num_node_types"] + p["num_edge_types"] * p["max_num_nodes"])
        sigma = temperature * float(torch.exp(self.ln_var.detach().float() / 2))
        device = self.ln_var.device
        z = torch.randn(count, dims, generator=generator, device=device) * sigma
        x, adj = self.reverse(z)
        return x.argmax(dim=2), adj.argmax(dim=1)


def bits_per_dim(z: Tensor, logdet: Tensor, ln_var: Tensor) -> Tensor:
    """DLE's MoFlowLoss term: the Gaussian NLL of z (variance exp(ln_var)) minus the flow's
    log-det, with the dequantisation's log 2 per dimension, in bits per dimension."""
    flat = z.float().reshape(z.shape[0], -1)
    size = flat.shape[1]
    nll = 0.5 * (ln_var + math.log(2 * math.pi)) + 0.5 * flat * flat * torch.exp(-ln_var)
    return (nll.sum(1) - (logdet.float() - size * math.log(2.0))).mean() / (size * math.log(2.0))


def moflow(preset: Mapping[str, Any]) -> MoFlow:
    return MoFlow(preset)


def forward_flops(p: Mapping[str, Any]) -> float:
    """2 x multiply-adds of one molecule: every bond coupling's 3x3 convolutions over the
    squeezed 2 x 2 grid and every atom coupling's graph convolution (self, per-bond-type
    messages and their sum over neighbours) and linear layers."""
    nodes, types, edges, fold = (p["max_num_nodes"], p["num_node_types"], p["num_edge_types"],
                                 p["b_n_squeeze"])
    channels, cells = edges * fold * fold, (nodes // fold) ** 2
    sizes = [channels // 2, *p["b_hidden_ch"], channels]
    bond = cells * 9 * sum(a * b for a, b in zip(sizes, sizes[1:]))
    atom, last = 0, types
    for h in p["a_hidden_gnn"]:
        atom += nodes * last * h * (1 + edges) + edges * nodes * nodes * h
        last = h
    for h in [*p["a_hidden_lin"], 2 * types]:
        atom += nodes * last * h
        last = h
    return 2.0 * (p["b_n_flow"] * bond + p["a_n_flow"] * atom)
