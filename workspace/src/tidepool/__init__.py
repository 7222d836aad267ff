"""tidepool: tide predictions from harmonic constituents."""

from .datums import convert
from .extremes import Extreme, find_extremes
from .harmonics import predict
from .stations import Station, load_station, list_stations

__version__ = "0.5.0.dev0"
__all__ = ["Station", "Extreme", "convert", "find_extremes", "list_stations", "load_station", "predict"]
