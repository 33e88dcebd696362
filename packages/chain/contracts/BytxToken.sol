// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Capped} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Capped.sol";

/// @title BYTX, the platform token (18 decimals).
/// @notice The whole supply (the cap, 100,000,000 tokens) is minted once, to `holder`, at deployment; the
///         deployer then distributes it (pool liquidity, sale stock, reserve). No further minting exists,
///         the cap is a guarantee readable on the chain.
contract BytxToken is ERC20, ERC20Capped {
    /// @dev 100,000,000 whole tokens in base units (18 decimals).
    uint256 public constant MAX_SUPPLY = 100_000_000e18;

    constructor(address holder) ERC20("BYTX", "BYTX") ERC20Capped(MAX_SUPPLY) {
        _mint(holder, MAX_SUPPLY);
    }

    /// @dev Both parents define `_update`; ERC20Capped's version adds the cap check on mint.
    function _update(address from, address to, uint256 value) internal override(ERC20, ERC20Capped) {
        super._update(from, to, value);
    }
}
