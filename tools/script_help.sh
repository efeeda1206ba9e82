# Sourced by the shell scripts of tools/ before they do anything:
#
#   source "$(dirname "$0")/script_help.sh"; script_help "$0" "$@"
#
# -h or --help prints the script's header comment (its documentation) on
# standard output and exits 0. Any other argument that starts with '-' is
# refused with exit 2: these scripts take their settings from environment
# variables and positional arguments, so an option is a mistake (before this,
# `tools/gpu-check.sh --help` made a folder called --help and ran the checks).
script_help() { # SCRIPT [ARGUMENT...]
    local script=$1 arg
    shift
    for arg in "$@"; do
        case $arg in
        -h | --help)
            awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$script"
            exit 0
            ;;
        -*)
            echo "$(basename "$script"): unknown option '$arg'; accepted: -h, --help" \
                "(settings are the environment variables --help names)" >&2
            exit 2
            ;;
        esac
    done
}
